import type { DataSource, EntityManager } from 'typeorm';
import type { PerTestApp } from './backends';
import { CountingConnection, countingConnection } from './counting-data-source';

/** The application's own DataSource (see `appConnection`), with the name of its `orders` table. */
export type AppConnection = CountingConnection & { orders: string };

/**
 * The application's own DataSource, shared with the queue module (the module's `dataSource` option: on SQLite the
 * one way its transactions can hold the queue's writes; on PostgreSQL one of two), with an `orders` table of its own.
 */
export async function appConnection(current: PerTestApp): Promise<AppConnection> {
  const connection = countingConnection(current.db);
  await connection.dataSource.initialize();
  const schema = connection.options.postgres?.schema;
  const orders = schema ? `"${schema}".orders` : 'orders';
  if (schema) await connection.dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await connection.dataSource.query(`CREATE TABLE ${orders} (id integer PRIMARY KEY, item text NOT NULL)`);
  return { ...connection, orders };
}

/** Runs `work` in a transaction of `dataSource` and rolls it back (by throwing). */
export async function rolledBack(dataSource: DataSource, work: (manager: EntityManager) => Promise<unknown>): Promise<void> {
  const rollback = new Error('roll back');
  await expect(
    dataSource.transaction(async (manager) => {
      await work(manager);
      throw rollback;
    }),
  ).rejects.toBe(rollback);
}
