/**
 * The run history of a batch handler's jobs: each run records how many jobs the call that ran it held, while it runs
 * (read from another module of the same database, as an operator's process would) and once it ended, by retry or by
 * completion; a single-job handler's runs record none.
 */
import { TestingModule } from '@nestjs/testing';
import { JobRun, QueueAdmin, QueueProducer } from '../lib';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';
import { defineBatchProcessor } from './fixtures/define-processor';

type Item = { n: number };

describeEachBackend('batch handlers: the run history records the batch', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let app: TestingModule;
  const admin = () => app.get(QueueAdmin);
  const runsOf = async (id: string): Promise<JobRun[]> => (await admin().getJob(id))?.runs ?? [];
  /** Adds the jobs while the queue is paused, so one claim takes them all into one call. */
  const addTogether = async (queue: string, count: number, options = {}): Promise<string[]> => {
    await admin().pause(queue);
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) ids.push((await app.get(QueueProducer).add(queue, { n }, options)).id);
    await admin().resume(queue);
    return ids;
  };

  it('a running batch shows its size on each job; a retried item keeps it in its record, its next run has its own', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sizes: number[] = [];
    const Batch = defineBatchProcessor<Item>(
      'bundle',
      async (jobs) => {
        sizes.push(jobs.length);
        if (sizes.length === 1) await gate;
        return jobs.map((job) => (job.data.n === 1 && job.attempt === 1 ? new Error('first item fails once') : job.data.n * 10));
      },
      { batch: { size: 3, maxWaitMs: 50 }, backoff: { type: 'fixed', delay: 0 }, maxAttempts: 2 },
    );
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Batch] });
    const ids = await addTogether('bundle', 3);
    try {
      // While the call runs: each job's current run says so (written with the starts, in the round after the call began).
      await waitFor(
        async () => (await Promise.all(ids.map(runsOf))).every((runs) => runs.length === 1 && runs[0].batchSize === 3),
        'the three running jobs show a batch of 3',
      );
      for (const id of ids) expect((await runsOf(id))[0]).toMatchObject({ outcome: 'running', attempt: 1, batchSize: 3 });
    } finally {
      // Released whatever happened, so that the app closes without waiting for the call.
      release();
    }
    await waitFor(
      async () => (await Promise.all(ids.map((id) => admin().getJob(id)))).every((job) => job?.status === 'completed'),
      'all completed',
    );
    expect(sizes).toEqual([3, 1]);
    expect((await runsOf(ids[0])).map((run) => [run.outcome, run.attempt, run.batchSize])).toEqual([
      ['retried', 1, 3],
      ['completed', 2, 1],
    ]);
    for (const id of ids.slice(1)) {
      expect((await runsOf(id)).map((run) => [run.outcome, run.attempt, run.batchSize])).toEqual([['completed', 1, 3]]);
    }
  });

  it('a job that waited in a partial batch past a round of writes shows its size once its call runs long', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let called = false;
    const Batch = defineBatchProcessor<Item>(
      'waiting',
      async (jobs) => {
        called = true;
        await gate;
        return jobs.map((job) => job.data.n);
      },
      // The batch never fills: the call comes maxWaitMs after the job, long after its start was written.
      { batch: { size: 5, maxWaitMs: 300 } },
    );
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Batch] });
    const { id } = await app.get(QueueProducer).add('waiting', { n: 1 });
    try {
      await waitFor(async () => (await admin().getJob(id))?.startedAt !== null, 'its start is written while it waits for the batch');
      expect(called).toBe(false);
      expect('batchSize' in (await runsOf(id))[0]).toBe(false);
      await waitFor(async () => (await runsOf(id))[0]?.batchSize === 1, 'the running call shows its size');
      expect((await runsOf(id))[0]).toMatchObject({ outcome: 'running', batchSize: 1 });
    } finally {
      release();
    }
    await waitFor(async () => (await admin().getJob(id))?.status === 'completed', 'completed');
    expect((await runsOf(id)).map((run) => [run.outcome, run.batchSize])).toEqual([['completed', 1]]);
  });

  it('a batch job cancelled while it ran keeps its size on that run; retried and run by a single-job handler, it shows none', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const Batch = defineBatchProcessor<Item>(
      'bundle',
      async (jobs) => {
        await gate;
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 2, maxWaitMs: 20 } },
    );
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Batch] });
    const [cancelled, other] = await addTogether('bundle', 2);
    try {
      await waitFor(async () => (await runsOf(cancelled)).at(-1)?.batchSize === 2, 'the running job shows its batch');
      await admin().cancel(cancelled);
    } finally {
      release();
    }
    await waitFor(async () => (await admin().getJob(other))?.status === 'completed', 'the other job completed');
    expect((await admin().getJob(cancelled))?.status).toBe('cancelled');
    expect((await runsOf(cancelled)).at(-1)).toMatchObject({ outcome: 'cancelled', batchSize: 2 });
    await current.close(app);
    // The same queue, now served by a single-job handler: the old run's size must not follow the job.
    const Single = defineBatchProcessor<Item>('bundle', async () => 'single', {});
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Single] });
    await admin().retry(cancelled);
    await waitFor(async () => (await admin().getJob(cancelled))?.result === 'single', 'run again by the single-job handler');
    const last = (await runsOf(cancelled)).at(-1)!;
    expect(last.outcome).toBe('completed');
    expect('batchSize' in last).toBe(false);
  });

  it("a single-job handler's runs record no batch", async () => {
    const Single = defineBatchProcessor<Item>('single', async () => 'done', {});
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Single] });
    const { id } = await app.get(QueueProducer).add('single', { n: 1 });
    await waitFor(async () => (await admin().getJob(id))?.status === 'completed', 'completed');
    const runs = await runsOf(id);
    expect(runs).toHaveLength(1);
    expect('batchSize' in runs[0]).toBe(false);
  });
});
