/**
 * Batch handlers and the errors that are not failures: a RateLimitError or a SnoozeError thrown by the call applies to
 * every job of the batch, one returned as an item applies to its job alone, as for a single-job handler.
 */
import { TestingModule } from '@nestjs/testing';
import { Job, JobInfo, JobSnoozedEvent, ProcessorOptions, QueueAdmin, QueueEvents, QueueProducer } from '../lib';
import { GroupRateLimitError, RateLimitError, SnoozeError } from '../lib';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';
import { defineBatchProcessor } from './fixtures/define-processor';

type Item = { n: number };

describeEachBackend('batch handlers: RateLimitError and SnoozeError', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let app: TestingModule;
  /** Each call: its job ids, in order, and when it began. */
  let calls: { ids: string[]; at: number }[];
  const admin = () => app.get(QueueAdmin);
  const start = async (handle: (jobs: Job<Item>[], call: number) => Promise<unknown>, options: ProcessorOptions) => {
    calls = [];
    const Batch = defineBatchProcessor<Item>(
      'batch',
      (jobs) => {
        calls.push({ ids: jobs.map((job) => job.id), at: Date.now() });
        return handle(jobs, calls.length);
      },
      options,
    );
    app = await current.startApp({ module: { pollInterval: 20 }, providers: [Batch] });
  };
  /** Adds the jobs while the queue is paused, so one claim takes them all into one batch. */
  const addTogether = async (count: number): Promise<string[]> => {
    await admin().pause('batch');
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) ids.push((await app.get(QueueProducer).add('batch', { n })).id);
    await admin().resume('batch');
    return ids;
  };
  const completed = async (ids: string[]): Promise<JobInfo[]> => {
    await waitFor(
      async () => (await Promise.all(ids.map((id) => admin().getJob(id)))).every((job) => job?.status === 'completed'),
      `jobs ${ids.join(', ')} completed`,
      10_000,
    );
    return (await Promise.all(ids.map((id) => admin().getJob(id)))) as JobInfo[];
  };
  const outcomes = (job: JobInfo) => job.runs!.map((run) => [run.outcome, run.attempt]);
  /** Every call after the first held `ids` between them, and none came before the first call's pause (`delay`) ended. */
  const expectCalledAgainAfter = (ids: string[], delay: number) => {
    expect(
      calls
        .slice(1)
        .flatMap((call) => call.ids)
        .sort(),
    ).toEqual([...ids].sort());
    for (const call of calls.slice(1)) expect(call.at - calls[0].at).toBeGreaterThanOrEqual(delay - 5);
  };

  it('a RateLimitError thrown by the call pauses the queue and hands every job of the batch back, no attempt spent', async () => {
    const delay = 600;
    await start(
      async (jobs, call) => {
        if (call === 1) throw new RateLimitError(delay);
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 3, maxWaitMs: 50 }, maxAttempts: 1 },
    );
    const ids = await addTogether(3);
    const jobs = await completed(ids);
    expect(calls[0].ids.sort()).toEqual([...ids].sort());
    // maxAttempts 1 and completed: the rate-limited run counted for none of them.
    expect(jobs.map((job) => [job.status, job.result, job.attempts])).toEqual([
      ['completed', 1, 1],
      ['completed', 2, 1],
      ['completed', 3, 1],
    ]);
    for (const job of jobs) {
      expect(outcomes(job)).toEqual([
        ['rate-limited', 1],
        ['completed', 1],
      ]);
    }
    // Nothing of the queue was called during the pause; the jobs came back together after it.
    expectCalledAgainAfter(ids, delay);
  });

  it('a RateLimitError also hands back a partial batch still waiting to fill: it is not called during the pause', async () => {
    const delay = 2_000;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await start(
      async (jobs, call) => {
        if (call === 1) {
          await held;
          throw new RateLimitError(delay);
        }
        return jobs.map((job) => job.data.n);
      },
      // Two batches may run at once; a partial one is called 1 s after its first job arrived, within the pause.
      { batch: { size: 2, maxWaitMs: 1_000 }, concurrency: 4, maxAttempts: 1 },
    );
    const first = await addTogether(2);
    await waitFor(() => calls.length === 1, 'the first batch called');
    const [waiting] = await addTogether(1);
    await waitFor(async () => (await admin().getJob(waiting))?.status === 'running', 'the third job claimed, waiting to fill');
    release();
    const ids = [...first, waiting];
    const jobs = await completed(ids);
    expect(jobs.map((job) => [job.result, job.attempts])).toEqual([
      [1, 1],
      [2, 1],
      [1, 1],
    ]);
    // Nothing was called during the pause: the waiting job went back with the batch's, unstarted, and came after it.
    expectCalledAgainAfter(ids, delay);
  });

  it("a GroupRateLimitError thrown by the call pauses each job's group, not the queue, and hands the jobs back", async () => {
    const delay = 2_500;
    await start(
      async (jobs, call) => {
        if (call === 1) throw new GroupRateLimitError(delay);
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 2, maxWaitMs: 50 }, maxAttempts: 1 },
    );
    await admin().pause('batch');
    const producer = app.get(QueueProducer);
    const grouped = [
      (await producer.add('batch', { n: 1 }, { group: 'a' })).id,
      (await producer.add('batch', { n: 2 }, { group: 'b' })).id,
    ];
    await admin().resume('batch');
    await waitFor(() => calls.length === 1, 'the first batch called');
    // A job of another group runs during the groups' pause: the queue itself is not paused.
    const plain = (await producer.add('batch', { n: 3 }, { group: 'c' })).id;
    const [done] = await completed([plain]);
    expect(done.result).toBe(3);
    expect(Date.now() - calls[0].at).toBeLessThan(delay);
    const jobs = await completed(grouped);
    expect(jobs.map((job) => [job.result, job.attempts])).toEqual([
      [1, 1],
      [2, 1],
    ]);
    for (const job of jobs) expect(outcomes(job)[0]).toEqual(['rate-limited', 1]);
    for (const call of calls.filter((one) => one.ids.some((id) => grouped.includes(id))).slice(1)) {
      expect(call.at - calls[0].at).toBeGreaterThanOrEqual(delay - 5);
    }
  });

  it('a RateLimitError as an item pauses the queue and hands back that job alone; the others complete with their items', async () => {
    const delay = 600;
    await start(async (jobs, call) => jobs.map((job) => (call === 1 && job.data.n === 2 ? new RateLimitError(delay) : job.data.n * 10)), {
      batch: { size: 3, maxWaitMs: 50 },
      maxAttempts: 1,
    });
    const ids = await addTogether(3);
    const others = [ids[0], ids[2]];
    // The others completed from the first call, not after the pause.
    await waitFor(
      async () => (await Promise.all(others.map((id) => admin().getJob(id)))).every((job) => job?.status === 'completed'),
      'the other two completed',
    );
    expect(calls).toHaveLength(1);
    const jobs = await completed(ids);
    expect(jobs.map((job) => [job.status, job.result, job.attempts])).toEqual([
      ['completed', 10, 1],
      ['completed', 20, 1],
      ['completed', 30, 1],
    ]);
    expect(outcomes(jobs[1])).toEqual([
      ['rate-limited', 1],
      ['completed', 1],
    ]);
    expect(outcomes(jobs[0])).toEqual([['completed', 1]]);
    expect(calls.slice(1).map((call) => call.ids)).toEqual([[ids[1]]]);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(delay - 5);
  });

  it('a SnoozeError thrown by the call snoozes every job of the batch; one as an item snoozes its job alone', async () => {
    const snoozed: JobSnoozedEvent[] = [];
    await start(
      async (jobs, call) => {
        if (call === 1) throw new SnoozeError(150);
        return jobs.map((job) => (call === 2 && job.data.n === 3 ? new SnoozeError(100) : job.data.n));
      },
      { batch: { size: 3, maxWaitMs: 50 }, maxAttempts: 1 },
    );
    const subscription = app
      .get(QueueEvents)
      .on('snoozed', 'batch')
      .subscribe((event) => snoozed.push(event));
    try {
      const ids = await addTogether(3);
      const jobs = await completed(ids);
      expect(jobs.map((job) => [job.status, job.result, job.attempts, job.snoozes])).toEqual([
        ['completed', 1, 1, 1],
        ['completed', 2, 1, 1],
        ['completed', 3, 1, 2],
      ]);
      expect(outcomes(jobs[0])).toEqual([
        ['snoozed', 1],
        ['completed', 1],
      ]);
      expect(outcomes(jobs[2])).toEqual([
        ['snoozed', 1],
        ['snoozed', 1],
        ['completed', 1],
      ]);
      expect(snoozed.map((event) => [event.jobId, event.delay]).sort()).toEqual(
        [
          [ids[0], 150],
          [ids[1], 150],
          [ids[2], 150],
          [ids[2], 100],
        ].sort(),
      );
      // The snoozed item's job ran again alone (or with no one of this batch); each job was called once per run.
      expect(calls.flatMap((call) => call.ids).filter((id) => id === ids[2])).toHaveLength(3);
      expect(calls.flatMap((call) => call.ids).filter((id) => id === ids[0])).toHaveLength(2);
    } finally {
      subscription.unsubscribe();
    }
  });
});
