/**
 * At run time, a database failure reaches callers of QueueProducer and QueueAdmin as a `StorageError` naming the
 * call and its queue, job or file, the driver's error kept as `cause`; the library's own typed errors are
 * unchanged; nothing is written.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { JobNotFoundError, QueueAdmin, QueueProducer, SqliteQueueModule, StorageError } from '../lib';
import { ChildApp, startLockHolder } from './support/child-app';
import { describeEachSqlite, describePostgres, perTestApp, MIGRATED } from './support/backends';
import { postgresSchemaFor, postgresTestUrl } from './support/test-backend';
import { SHORT_BUSY_TIMEOUT } from './support/test-timings';

describeEachSqlite('run-time storage errors on SQLite', (backend) => {
  const t = perTestApp(backend, MIGRATED);
  let holder: ChildApp | undefined;
  afterEach(async () => {
    await holder?.kill();
    holder = undefined;
  });

  async function start(busyTimeout?: number): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    const options = { ...t.db.options, busyTimeout };
    t.app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot(options)] }).compile();
    await t.app.init();
    return { producer: t.app.get(QueueProducer), admin: t.app.get(QueueAdmin) };
  }

  it('a backup into a missing folder: StorageError naming the call and the destination, driver error as cause', async () => {
    const { admin } = await start();
    const destination = join(t.db.path, '..', 'no-such-folder', 'copy.sqlite');
    const error = await admin.backup(destination).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).kind).toBe('cannot-open');
    expect((error as Error).message).toContain('QueueAdmin.backup');
    expect((error as Error).message).toContain(destination);
    expect((error as StorageError).cause).toBeInstanceOf(Error);
    expect(existsSync(destination)).toBe(false);
  });

  it("the library's own errors are not wrapped", async () => {
    const { admin } = await start();
    await expect(admin.cancel('424242')).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('an add that waits past the busy timeout: StorageError, transient, SQLITE_BUSY cause, queue named, nothing written', async () => {
    // busyTimeout is what SQLite waits: the add fails after about that long, while the lock is still held.
    const { producer, admin } = await start(SHORT_BUSY_TIMEOUT);
    holder = startLockHolder(t.db.path, SHORT_BUSY_TIMEOUT + 3000);
    await holder.printed('LOCKED');
    const started = Date.now();
    const error = await producer.add('busy-queue', { n: 1 }).catch((caught: unknown) => caught);
    // SQLite's busy handler sleeps in steps and gives up once the next step would pass the timeout.
    expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_BUSY_TIMEOUT - 100);
    expect(holder.stdout()).not.toContain('RELEASING');
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).transient).toBe(true);
    expect((error as Error).message).toContain('QueueProducer.add');
    expect((error as Error).message).toContain('"busy-queue"');
    expect(String((error as StorageError).cause)).toMatch(/SQLITE_BUSY|database is locked/);
    expect(await holder.exited).toBe(0);
    expect((await admin.getCounts('busy-queue')).pending).toBe(0);
  }, 30_000);

  it("busyTimeout is set on a lent DataSource too, whatever the application's own setting", async () => {
    const type = backend.driver === 'better-sqlite3' ? 'better-sqlite3' : 'sqlite';
    const dataSource = new DataSource({ type, database: t.db.path });
    try {
      t.app = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRoot({ dataSource, busyTimeout: SHORT_BUSY_TIMEOUT })],
      }).compile();
      await t.app.init();
      // The lease floor the options passed was computed from this wait.
      expect(await dataSource.query('PRAGMA busy_timeout')).toEqual([{ timeout: SHORT_BUSY_TIMEOUT }]);
      await t.app.close();
      t.app = undefined;
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
    }
  });
});

describePostgres('run-time storage errors on PostgreSQL', (backend) => {
  const t = perTestApp(backend, MIGRATED);

  it('tables gone under a running app: StorageError naming the call, DatabaseError as cause, not a raw QueryFailedError', async () => {
    t.app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...t.db.options })] }).compile();
    await t.app.init();
    const producer = t.app.get(QueueProducer);
    const admin = t.app.get(QueueAdmin);
    const other = new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 });
    await other.initialize();
    try {
      await other.query(`DROP SCHEMA "${postgresSchemaFor(t.db.path)}" CASCADE`);
    } finally {
      await other.destroy();
    }
    const counts = await admin.getCounts('gone').catch((caught: unknown) => caught);
    expect(counts).toBeInstanceOf(StorageError);
    expect((counts as Error).message).toContain('QueueAdmin.getCounts');
    const added = await producer.add('gone', {}).catch((caught: unknown) => caught);
    expect(added).toBeInstanceOf(StorageError);
    expect((added as Error).message).toContain('"gone"');
    expect(((added as StorageError).cause as { name?: string }).name).toBe('QueryFailedError');
  });
});
