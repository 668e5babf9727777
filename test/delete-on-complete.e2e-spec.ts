/**
 * A completion whose retention keeps nothing (`removeOnComplete: true` per job, or a queue's retention that keeps no
 * completed job) deletes the job's row in the completion statement itself, and every documented behaviour around a
 * completed job still holds: its `completed` event and result, `waitUntilFinished` from this and another process,
 * flows, dependencies, `job.completeIn`, batch handlers. Retention's own sweep is switched off in these tests (unless
 * a test says otherwise), so a row that is gone was deleted by its completion.
 */
import { Type } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import {
  BatchProcessor,
  Job,
  JobNotFoundError,
  Processor,
  ProcessorOptions,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueProducer,
  SqliteQueueModule,
} from '../lib';
import { RetentionKeeper } from '../lib/housekeeping/retention-keeper';
import { PostgresWaitStorage } from '../lib/storage/postgres/roles/wait.storage';
import { SqliteWaitStorage } from '../lib/storage/sqlite/roles/wait.storage';
import { defineProcessor } from './fixtures/define-processor';
import { appConnection, AppConnection } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { deferred, waitFor } from './support/wait-for';

/** Switches retention's periodic sweep off: a row deleted meanwhile was deleted by its completion. */
function stopRetentionSweeps(): jest.SpyInstance {
  return jest.spyOn(RetentionKeeper.prototype as unknown as { sweep(now: number): Promise<boolean> }, 'sweep').mockResolvedValue(false);
}

/** Counts the waiters' heartbeats written (by any app of the test), once each has landed. */
function countHeartbeats(): { readonly written: number } {
  const counter = { written: 0 };
  for (const proto of [SqliteWaitStorage.prototype, PostgresWaitStorage.prototype]) {
    const original = proto.markFinishWaiters;
    jest.spyOn(proto, 'markFinishWaiters').mockImplementation(async function (this: typeof proto, now: number) {
      await original.call(this, now);
      counter.written++;
    });
  }
  return counter;
}

describeEachBackend('delete on completion (retention that keeps nothing)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  afterEach(async () => {
    jest.restoreAllMocks();
    await connection?.destroy();
    connection = undefined;
  });

  async function start(providers: Type[], module: Record<string, unknown> = {}): Promise<TestingModule> {
    return current.startApp({ module: { pollInterval: 100, ...module }, providers });
  }

  it('per job: the completion deletes the row; the completed event carries the result; counts show no completed job', async () => {
    stopRetentionSweeps();
    const app = await start([defineProcessor<{ n: number }>('jobs', async (job) => ({ doubled: job.data.n * 2 }))]);
    const seen: QueueEvent[] = [];
    app.get(QueueEvents).subscribe((event) => seen.push(event));
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const removed = await producer.add('jobs', { n: 21 }, { removeOnComplete: true });
    const kept = await producer.add('jobs', { n: 1 });
    await waitFor(() => seen.filter((event) => event.type === 'completed').length === 2, 'both completed');
    expect(seen.find((event) => event.type === 'completed' && event.jobId === removed.id)).toMatchObject({ result: { doubled: 42 } });
    expect(await admin.getJob(removed.id)).toBeNull();
    expect(await admin.getJob(kept.id)).toMatchObject({ status: 'completed', result: { doubled: 2 } });
    expect(await admin.getCounts('jobs')).toEqual({ pending: 0, running: 0, completed: 1, failed: 0, cancelled: 0, claimed: 0 });
  });

  it("per queue (removeOnComplete: true, and the module's default): every completion deletes its row", async () => {
    stopRetentionSweeps();
    const app = await start(
      [
        defineProcessor('own', async () => 'a', { removeOnComplete: true }),
        defineProcessor('inherited', async () => 'b'),
        defineProcessor('counted', async () => 'c', { removeOnComplete: { count: 0, age: 60_000 } }),
      ],
      { removeOnComplete: true },
    );
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const ids = [
      ...(await producer.addBulk('own', [{ data: {} }, { data: {} }])),
      ...(await producer.addBulk('inherited', [{ data: {} }, { data: {} }])),
      ...(await producer.addBulk('counted', [{ data: {} }])),
    ].map((job) => job.id);
    await waitFor(async () => (await Promise.all(ids.map((id) => admin.getJob(id)))).every((job) => job === null), 'all deleted');
  });

  it('removeOnFail stays as it was: a failed job is kept until retention sweeps it', async () => {
    stopRetentionSweeps();
    const app = await start([defineProcessor('failing', async () => Promise.reject(new Error('no')), { maxAttempts: 1 })]);
    const job = await app.get(QueueProducer).add('failing', {}, { removeOnFail: true, removeOnComplete: true });
    await waitFor(async () => (await app.get(QueueAdmin).getJob(job.id))?.status === 'failed', 'failed and kept');
  });

  it('waitUntilFinished from the same process resolves completed with the result (the waiting keeps the row)', async () => {
    stopRetentionSweeps();
    const heartbeats = countHeartbeats();
    const gate = deferred();
    const app = await start([defineProcessor('waited', async () => gate.promise.then(() => 'done'), { removeOnComplete: true })]);
    const job = await app.get(QueueProducer).add('waited', {});
    const finished = app.get(QueueAdmin).waitUntilFinished(job.id);
    await waitFor(() => heartbeats.written > 0, 'the waiters heartbeat written');
    gate.resolve();
    await expect(finished).resolves.toMatchObject({ id: job.id, status: 'completed', result: 'done' });
  });

  it('a wait that begins after this process completed and deleted the job (add, then wait) resolves completed with the result', async () => {
    stopRetentionSweeps();
    const app = await start([defineProcessor<{ n: number }>('quick', async (job) => job.data.n * 2, { removeOnComplete: true })]);
    const completed: string[] = [];
    app.get(QueueEvents).subscribe((event) => event.type === 'completed' && completed.push(event.jobId));
    const job = await app.get(QueueProducer).add('quick', { n: 21 });
    // No wait had begun, so no process kept the row: it is gone before the wait's first look.
    await waitFor(() => completed.includes(job.id), 'completed');
    expect(await app.get(QueueAdmin).getJob(job.id)).toBeNull();
    await expect(job.waitUntilFinished()).resolves.toMatchObject({ id: job.id, status: 'completed', result: 42, data: { n: 21 } });
    await expect(app.get(QueueAdmin).waitUntilFinished(job.id)).resolves.toMatchObject({ status: 'completed', result: 42 });
    // A job that never existed is still not found.
    await expect(app.get(QueueAdmin).waitUntilFinished(String(Number(job.id) + 1000))).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it('add, then wait at once, many times over from a cold start: every wait resolves completed (none finds its job gone)', async () => {
    stopRetentionSweeps();
    const app = await start([defineProcessor<{ i: number }>('echo', async (job) => job.data.i, { removeOnComplete: true })]);
    const producer = app.get(QueueProducer);
    for (let i = 0; i < 40; i++) {
      const job = await producer.add('echo', { i });
      await expect(job.waitUntilFinished({ timeout: 20_000 })).resolves.toMatchObject({ status: 'completed', result: i });
    }
  });

  it('waitUntilFinished from another process (app) on the same database resolves completed with the result', async () => {
    stopRetentionSweeps();
    const heartbeats = countHeartbeats();
    const gate = deferred();
    await start([defineProcessor('remote', async () => gate.promise.then(() => ({ ok: true })), { removeOnComplete: true })]);
    const waiter = await current.startApp({ module: { pollInterval: 100, processing: false } });
    const job = await waiter.get(QueueProducer).add('remote', {});
    const finished = waiter.get(QueueAdmin).waitUntilFinished(job.id, { timeout: 20_000 });
    await waitFor(() => heartbeats.written > 0, 'the waiters heartbeat written');
    gate.resolve();
    await expect(finished).resolves.toMatchObject({ id: job.id, status: 'completed', result: { ok: true } });
  });

  it('a dependency with removeOnComplete releases its dependent as completed (never failed), then retention removes it', async () => {
    const gate = deferred();
    const app = await start([
      defineProcessor('fetch', async () => gate.promise.then(() => 'fetched')),
      defineProcessor('report', async () => 'reported'),
    ]);
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const dependency = await producer.add('fetch', {}, { removeOnComplete: true });
    const dependent = await producer.add('report', {}, { dependsOn: [dependency.id] });
    gate.resolve();
    await expect(admin.waitUntilFinished(dependent.id, { timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
    await waitFor(async () => (await admin.getJob(dependency.id)) === null, 'the dependency removed by retention');
  });

  it('a dependency that completes while its dependent is being added still counts as completed', async () => {
    // The dependency runs at once: it completes before, during or after the dependent's add, never counts as removed.
    const app = await start([defineProcessor('quick', async () => 'ok'), defineProcessor('after', async () => 'after')]);
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    for (let round = 0; round < 5; round++) {
      const dependency = await producer.add('quick', {}, { removeOnComplete: true });
      const added = await producer.add('after', {}, { dependsOn: [dependency.id] }).catch((error: unknown) => error);
      // Gone before the add looked: the add is refused (JobNotFoundError), as for any removed job.
      if (added instanceof Error) {
        expect(added.name).toBe('JobNotFoundError');
        continue;
      }
      await expect(admin.waitUntilFinished((added as { id: string }).id, { timeout: 20_000 })).resolves.toMatchObject({
        status: 'completed',
      });
    }
  });

  it("a flow child of a queue that keeps nothing is kept until its parent read it: the parent gets every child's result", async () => {
    const results: Record<string, unknown>[] = [];
    const app = await start([
      defineProcessor('thumbs', async (job: Job<{ n: number }>) => `t${job.data.n}`, { removeOnComplete: true }),
      defineProcessor('albums', async (job) => void results.push(await job.getChildrenResults())),
    ]);
    const flow = await app.get(QueueProducer).addFlow({
      queue: 'albums',
      data: {},
      children: [1, 2, 3].map((n) => ({ queue: 'thumbs', data: { n } })),
    });
    await expect(app.get(QueueAdmin).waitUntilFinished(flow.id, { timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
    expect(Object.values(results[0]).sort()).toEqual(['t1', 't2', 't3']);
  });

  it('job.completeIn takes the same path: the committed transaction deletes the row with the effect', async () => {
    stopRetentionSweeps();
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const seen: QueueEvent[] = [];
    const pay = defineProcessor<{ n: number }>(
      'pay',
      async (job) => {
        await dataSource.transaction(async (manager) => {
          await manager.query(`INSERT INTO ${orders} (id, item) VALUES (${Number(job.id)}, 'paid')`);
          await job.completeIn(manager, { receipt: job.data.n });
        });
      },
      { removeOnComplete: true },
    );
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 100 })],
      providers: [pay],
    });
    app.get(QueueEvents).subscribe((event) => seen.push(event));
    const job = await app.get(QueueProducer).add('pay', { n: 5 });
    await waitFor(() => seen.some((event) => event.type === 'completed' && event.jobId === job.id), 'completed');
    expect(seen.find((event) => event.type === 'completed')).toMatchObject({ result: { receipt: 5 } });
    expect(await app.get(QueueAdmin).getJob(job.id)).toBeNull();
    expect(((await dataSource.query(`SELECT id FROM ${orders}`)) as { id: number }[]).map((row) => Number(row.id))).toEqual([
      Number(job.id),
    ]);
  });

  it("a batch handler's completions take the same path", async () => {
    stopRetentionSweeps();
    @Processor('batched', { batch: { size: 4, maxWaitMs: 50 }, removeOnComplete: true } as ProcessorOptions)
    class Batched implements BatchProcessor<{ n: number }> {
      async process(jobs: Job<{ n: number }>[]): Promise<number[]> {
        return jobs.map((job) => job.data.n);
      }
    }
    const app = await start([Batched]);
    const seen: QueueEvent[] = [];
    app.get(QueueEvents).subscribe((event) => seen.push(event));
    const jobs = await app.get(QueueProducer).addBulk(
      'batched',
      [1, 2, 3, 4].map((n) => ({ data: { n } })),
    );
    await waitFor(() => seen.filter((event) => event.type === 'completed').length === 4, 'all completed');
    for (const job of jobs) expect(await app.get(QueueAdmin).getJob(job.id)).toBeNull();
  });
});
