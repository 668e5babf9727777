/**
 * `job.completeIn` inside a batch handler: the jobs completed in the caller's transaction keep that completion (the
 * batch's item for them is ignored, nothing is written twice), the others complete from their items, and a rolled-back
 * completion fails that job's attempt alone, as for a single-job handler.
 */
import { Processor, BatchProcessor, CompletionNotCommittedError, Job, QueueAdmin, QueueEvent, QueueEvents, QueueProducer } from '../lib';
import { SqliteQueueModule } from '../lib';
import { AppConnection, appConnection } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

type Item = { n: number };
type Receipt = { receipt: string };

describeEachBackend('batch handlers: job.completeIn', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('completes in the transaction the jobs it names, the others from their items; a rollback fails that attempt alone', async () => {
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const calls: string[][] = [];
    const insertOrder = (manager: Parameters<Job['completeIn']>[0], job: Job) =>
      manager.query(`INSERT INTO ${orders} (id, item) VALUES (${Number(job.id)}, 'paid')`);

    @Processor('pay', { batch: { size: 4, maxWaitMs: 50 }, maxAttempts: 2, backoff: { type: 'fixed', delay: 10 } })
    class PayBatch implements BatchProcessor<Item, Receipt> {
      async process(jobs: Job<Item, Receipt>[]): Promise<Receipt[]> {
        calls.push(jobs.map((job) => job.id));
        // Jobs 1 and 2: their effects and completions in one transaction, committed.
        const paid = jobs.filter((job) => job.data.n <= 2);
        if (paid.length > 0) {
          await dataSource.transaction(async (manager) => {
            for (const job of paid) {
              await insertOrder(manager, job);
              await job.completeIn(manager, { receipt: `tx-${job.data.n}` });
            }
          });
        }
        // Job 3: rolled back on its first attempt, committed on its second.
        const third = jobs.find((job) => job.data.n === 3);
        if (third) {
          await dataSource
            .transaction(async (manager) => {
              await insertOrder(manager, third);
              await third.completeIn(manager, { receipt: `tx-3-attempt-${third.attempt}` });
              if (third.attempt === 1) throw new Error('roll back');
            })
            .catch(() => undefined);
        }
        // An item for every job, those completed in a transaction too: theirs is ignored.
        return jobs.map((job) => ({ receipt: `item-${job.data.n}` }));
      }
    }

    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 20 })],
      providers: [PayBatch],
    });
    const admin = app.get(QueueAdmin);
    const seen: QueueEvent[] = [];
    const subscription = app.get(QueueEvents).subscribe((event) => seen.push(event));
    try {
      await admin.pause('pay');
      const ids: string[] = [];
      for (let n = 1; n <= 4; n++) ids.push((await app.get(QueueProducer).add('pay', { n })).id);
      await admin.resume('pay');
      await waitFor(
        async () => (await Promise.all(ids.map((id) => admin.getJob(id)))).every((job) => job?.status === 'completed'),
        'the four jobs completed',
        10_000,
      );
      const jobs = (await Promise.all(ids.map((id) => admin.getJob(id))))!;
      expect(calls[0].sort()).toEqual([...ids].sort());
      expect(jobs.map((job) => [job!.status, job!.result, job!.attempts])).toEqual([
        ['completed', { receipt: 'tx-1' }, 1],
        ['completed', { receipt: 'tx-2' }, 1],
        ['completed', { receipt: 'tx-3-attempt-2' }, 2],
        ['completed', { receipt: 'item-4' }, 1],
      ]);
      // The rolled-back attempt failed as a single job's does, and its effect is gone.
      expect(jobs[2]!.error).toMatchObject({ name: CompletionNotCommittedError.name, attempt: 1 });
      const orderIds = ((await dataSource.query(`SELECT id FROM ${orders} ORDER BY id`)) as { id: number }[]).map((row) => Number(row.id));
      expect(orderIds).toEqual(ids.slice(0, 3).map(Number));
      // Each job completed once: the batch's item wrote nothing over a transaction's completion.
      await waitFor(async () => (await admin.getCounts('pay')).running === 0, 'the slots freed');
      const types = (id: string) => seen.filter((event) => event.jobId === id).map((event) => event.type);
      expect(types(ids[0])).toEqual(['added', 'active', 'completed']);
      expect(types(ids[1])).toEqual(['added', 'active', 'completed']);
      expect(types(ids[2])).toEqual(['added', 'active', 'retrying', 'active', 'completed']);
      expect(types(ids[3])).toEqual(['added', 'active', 'completed']);
      // Only job 3 ran again.
      expect(calls.slice(1)).toEqual([[ids[2]]]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
