/**
 * Runs the behavioural suite against PostgreSQL without changing a test. Loaded by the jest `postgres` project
 * (setupFiles) and, through `-r`, by every child process its tests start (test/support/child-app.ts).
 *
 * Every test opens its app with `forRoot({ database: <temp file> , ... })`. This setup wraps `forRoot` and
 * `forRootAsync` so that such options become `postgres: { url, schema }` with a schema derived from the file
 * path: each test gets a fresh schema, and the processes of one test, given the same path, share it. Options
 * the mapping does not recognise (a DataSource, an invalid or non-temporary database) pass through unchanged,
 * so validation errors stay what the tests expect.
 */
import { tmpdir } from 'node:os';
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import { mapModuleOptions } from './map-module-options';
import { PostgresQueueStorage } from '../../lib/storage/postgres/postgres-queue.storage';
import { BACKEND_ENV, postgresSchemaFor, postgresTestUrl } from './test-backend';

process.env[BACKEND_ENV] = 'postgres';

/** The PostgreSQL options standing in for options that name a test's temporary SQLite file. */
export function toPostgresOptions(options: SqliteQueueModuleOptions | undefined): SqliteQueueModuleOptions | undefined {
  if (typeof options !== 'object' || options === null) return options;
  const { database, ...rest } = options;
  if (rest.dataSource !== undefined || rest.postgres !== undefined) return options;
  if (typeof database !== 'string' || !(database === ':memory:' || database.startsWith(tmpdir()))) return options;
  return { ...rest, postgres: { url: postgresTestUrl(), schema: postgresSchemaFor(database) } };
}

mapModuleOptions(toPostgresOptions);

/**
 * Storages initialised and not closed yet. Nest runs no shutdown hook after a failed `app.init()` (its `close()`
 * rethrows the init error first), so a test of a boot error leaves its storage open: a LISTEN connection and a
 * pool per such test would pile up over the run (PostgreSQL allows 100 connections by default), and an
 * initialisation still running when the file's environment is torn down fails the run. postgres-backend.after-env.ts
 * closes what is left after each file.
 */
const openStorages = new Set<PostgresQueueStorage>();
const initialize = PostgresQueueStorage.prototype.initialize;
const close = PostgresQueueStorage.prototype.close;
PostgresQueueStorage.prototype.initialize = function (this: PostgresQueueStorage) {
  openStorages.add(this);
  return initialize.call(this);
};
PostgresQueueStorage.prototype.close = function (this: PostgresQueueStorage) {
  openStorages.delete(this);
  return close.call(this);
};

/** Closes every storage of this test file that its app left open (waiting for initialisations in progress). */
export async function closeLeftoverStorages(): Promise<void> {
  await Promise.all([...openStorages].map((storage) => storage.close().catch(() => undefined)));
}
