/**
 * The heartbeat never waits for a row another statement has locked. A completion batch and the heartbeat of the
 * same process both update several running rows by id; each locks its rows in its own plan's order, so when they
 * overlapped they could deadlock (the chaos soak logged "deadlock detected" on completion batches). A row that is
 * locked is being completed, failed, retried or recovered right now: it needs no renewal, and the next beat
 * renews it if it is still running. PostgreSQL-only: SQLite has one writer at a time.
 */
import { DataSource } from 'typeorm';
import { NewJobRecord } from '../lib/storage/queue-storage.interface';
import { createPostgresStorage } from '../lib/storage/postgres/postgres-queue.storage';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { describePostgres } from './support/backends';
import { postgresSchemaFor, postgresTestUrl } from './support/test-backend';

const WORKER = 'heartbeat-locks-worker';

/** Due at `runAt`: the claim's clock must not precede it (a later `Date.now()` per job once made one not yet due). */
function newJob(runAt: number): NewJobRecord {
  return { data: '{}', priority: 0, runAt, maxAttempts: 3, backoff: null, timeout: null, key: null };
}

describePostgres('PostgreSQL heartbeat and row locks', () => {
  const schema = postgresSchemaFor(`/heartbeat-locks/${process.pid}/${Date.now()}`);
  let storage: QueueStorage;
  let locker: DataSource;

  beforeAll(async () => {
    storage = createPostgresStorage({ connection: { url: postgresTestUrl(), poolSize: 2 }, schema, createSchema: true });
    await storage.initialize();
    locker = new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 });
    await locker.initialize();
  });
  afterAll(async () => {
    await storage?.close();
    await locker?.destroy();
  });

  it('skips a running row another transaction holds instead of waiting for it, and renews it once it is free', async () => {
    const now = Date.now();
    await storage.enqueue('beat', [newJob(now), newJob(now)], now);
    const claimed = await storage.claim([{ queue: 'beat', limit: 2 }], WORKER, now, 60_000);
    expect(claimed).toHaveLength(2);
    const refs = claimed.map((job) => ({ id: job.id, attempt: job.attempts }));

    const runner = locker.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
    try {
      await runner.query(`SELECT id FROM "${schema}".nest_queue_jobs WHERE id = $1 FOR UPDATE`, [claimed[0].id]);
      // Before: the heartbeat waited for the lock (and, against a completion batch locking in another order,
      // deadlocked). The bound is far above a statement's time and far below the lock's life in this test.
      const renewed = await Promise.race([
        storage.extendLeases(refs, WORKER, 60_000, Date.now()),
        new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), 5_000).unref()),
      ]);
      expect(renewed).toBe(1);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    expect(await storage.extendLeases(refs, WORKER, 60_000, Date.now())).toBe(2);
  });
});
