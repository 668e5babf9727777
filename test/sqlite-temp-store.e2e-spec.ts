/**
 * The library's own SQLite connection keeps temporary b-trees in memory once its migrations have run: a grouped
 * queue's claim materializes a few small temporary tables every round, and with SQLite's default (a file) each one
 * cost a file's creation, about 7x the statement's time on an idle queue (bench/group-idle.js). A DataSource the
 * application lends keeps the application's own choice.
 */
import { storageBackendOf } from '../lib/storage/shared/assemble-storage';
import { DataSource } from 'typeorm';
import { createQueueStorage } from '../lib/runtime/create-queue-storage';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { StatementRunner } from '../lib/storage/shared/statement-runner';
import { tempDatabase } from './support/temp-database';

/** What `PRAGMA temp_store` says on the storage's own connection: 0 default, 1 file, 2 memory. */
async function tempStoreOf(storage: QueueStorage): Promise<number> {
  const runner = (storageBackendOf(storage) as { db: { runner: StatementRunner } }).db.runner;
  const [row] = await runner.all('PRAGMA temp_store', []);
  return Number(Object.values(row)[0]);
}

describe.each(['sqlite3', 'better-sqlite3'] as const)('SQLite temporary storage (%s)', (driver) => {
  it('the library’s own connection keeps temporary b-trees in memory after its migrations', async () => {
    const file = tempDatabase();
    const storage = createQueueStorage({ database: file.path, driver, postgres: undefined, dataSource: undefined });
    try {
      await storage.initialize();
      expect(await tempStoreOf(storage)).toBe(2);
    } finally {
      await storage.close();
      file.cleanup();
    }
  });

  it('a DataSource the application lends keeps its own temp_store', async () => {
    const file = tempDatabase();
    const dataSource = new DataSource({ type: driver === 'sqlite3' ? 'sqlite' : 'better-sqlite3', database: file.path });
    await dataSource.initialize();
    const storage = createQueueStorage({ database: file.path, driver, postgres: undefined, dataSource });
    try {
      await storage.initialize();
      expect(await tempStoreOf(storage)).toBe(0);
    } finally {
      await storage.close();
      await dataSource.destroy();
      file.cleanup();
    }
  });
});
