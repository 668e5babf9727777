/**
 * Retries: backoff timing between attempts, the next run time kept in the database (so a waiting retry
 * survives a restart), UnrecoverableError, and the last error kept on the job.
 */
import { TestingModule } from '@nestjs/testing';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, UnrecoverableError } from '../lib';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface RetryData {
  /** Throw an Error on attempts <= failTimes. */
  failTimes?: number;
  /** Throw UnrecoverableError on the first attempt. */
  unrecoverable?: boolean;
}

interface Start {
  attempt: number;
  /** When the handler started. */
  at: number;
  /** The job's runAt as the handler saw it (the run time stored by the previous attempt's retry). */
  runAt: number;
  /** When the handler threw, if it did. */
  threwAt?: number;
  /** Which app generation ran it (restart test). */
  generation: number;
}

const starts = new Map<string, Start[]>();
let generation = 0;

function runAndMaybeThrow(job: Job<RetryData>): string {
  const start: Start = { attempt: job.attempt, at: Date.now(), runAt: job.runAt.getTime(), generation };
  starts.set(job.id, [...(starts.get(job.id) ?? []), start]);
  if (job.data.unrecoverable) {
    start.threwAt = Date.now();
    throw new UnrecoverableError(`account ${job.id} is gone`);
  }
  if (job.data.failTimes !== undefined && job.attempt <= job.data.failTimes) {
    start.threwAt = Date.now();
    throw new Error(`planned failure ${job.attempt}`);
  }
  return `done on attempt ${job.attempt}`;
}

@Processor('retry', { concurrency: 4 })
class RetryProcessor implements QueueProcessor<RetryData, string> {
  async process(job: Job<RetryData>): Promise<string> {
    return runAndMaybeThrow(job);
  }
}

@Processor('retry-fixed', { backoff: { type: 'fixed', delay: 200 }, maxAttempts: 3 })
class FixedRetryProcessor implements QueueProcessor<RetryData, string> {
  async process(job: Job<RetryData>): Promise<string> {
    return runAndMaybeThrow(job);
  }
}

describeEachBackend('retries', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  beforeEach(() => {
    starts.clear();
    generation = 0;
  });

  async function openApp(): Promise<{ app: TestingModule; producer: QueueProducer; admin: QueueAdmin }> {
    generation++;
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [RetryProcessor, FixedRetryProcessor] });
    return { app, producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  it('exponential backoff: each wait is at least the configured delay and doubles from attempt to attempt', async () => {
    const { producer, admin } = await openApp();
    const delay = 250;
    const job = await producer.add<RetryData>('retry', { failTimes: 3 }, { maxAttempts: 4, backoff: { type: 'exponential', delay } });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job completed on its 4th attempt');

    const runs = starts.get(job.id)!;
    expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3, 4]);
    for (let k = 1; k < runs.length; k++) {
      const configured = delay * 2 ** (k - 1); // 250, 500, 1000
      const previous = runs[k - 1];
      const next = runs[k];
      // The run time written to the row when attempt k failed: the configured delay after the failure.
      // (Upper bound: below the next step of the doubling, a generous margin of a whole delay.)
      expect(next.runAt - previous.threwAt!).toBeGreaterThanOrEqual(configured);
      expect(next.runAt - previous.threwAt!).toBeLessThan(2 * configured);
      // And the attempt did not start before it.
      expect(next.at).toBeGreaterThanOrEqual(next.runAt);
      expect(next.at - previous.at).toBeGreaterThanOrEqual(configured);
    }
    const gaps = runs.slice(1).map((run, k) => run.runAt - runs[k].threwAt!);
    expect(gaps[1]).toBeGreaterThan(gaps[0]);
    expect(gaps[2]).toBeGreaterThan(gaps[1]);
    expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 4, result: 'done on attempt 4' });
  });

  it("a job without backoff options uses its processor's backoff and maxAttempts", async () => {
    const { producer, admin } = await openApp();
    const job = await producer.add<RetryData>('retry-fixed', { failTimes: 10 });
    expect(job.maxAttempts).toBe(3);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed after its 3 attempts');
    const runs = starts.get(job.id)!;
    expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
    for (let k = 1; k < runs.length; k++) {
      expect(runs[k].runAt - runs[k - 1].threwAt!).toBeGreaterThanOrEqual(200);
      expect(runs[k].runAt - runs[k - 1].threwAt!).toBeLessThan(400); // fixed: no doubling
      expect(runs[k].at).toBeGreaterThanOrEqual(runs[k].runAt);
    }
  });

  it('a retry waiting in the database survives an application restart and runs after its run time, attempts carried over', async () => {
    const first = await openApp();
    const job = await first.producer.add<RetryData>('retry', { failTimes: 1 }, { maxAttempts: 3, backoff: { type: 'fixed', delay: 1500 } });
    await waitFor(async () => {
      const info = await first.admin.getJob(job.id);
      return info?.status === 'pending' && info.attempts === 1 && info.error !== null;
    }, 'the first attempt failed and the retry waits in the database');
    const waiting = (await first.admin.getJob(job.id))!;
    expect(waiting.runAt.getTime()).toBeGreaterThanOrEqual(starts.get(job.id)![0].threwAt! + 1500);
    expect(waiting).toMatchObject({ lockedBy: null, leaseUntil: null, error: { message: 'planned failure 1', attempt: 1 } });
    await first.app.close();
    expect(starts.get(job.id)!.map((run) => run.generation)).toEqual([1]);

    const second = await openApp();
    const reopened = (await second.admin.getJob(job.id))!;
    expect(reopened.runAt).toEqual(waiting.runAt); // (a claim keeps runAt, so no race with the new app here)
    await waitFor(async () => (await second.admin.getJob(job.id))?.status === 'completed', 'the retry ran in the new app', 30_000);
    const runs = starts.get(job.id)!;
    expect(runs.map(({ attempt, generation: g }) => [attempt, g])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(runs[1].at).toBeGreaterThanOrEqual(waiting.runAt.getTime());
    expect(runs[1].runAt).toBe(waiting.runAt.getTime());
    const done = await second.admin.getJob(job.id);
    // The error of the failed attempt stays on the job for the record.
    expect(done).toMatchObject({
      status: 'completed',
      attempts: 2,
      result: 'done on attempt 2',
      error: { message: 'planned failure 1', attempt: 1 },
    });
  });

  it('UnrecoverableError fails the job at once, with attempts 1, whatever attempts are left', async () => {
    const { producer, admin } = await openApp();
    const job = await producer.add<RetryData>('retry', { unrecoverable: true }, { maxAttempts: 5, backoff: { type: 'fixed', delay: 0 } });
    const witness = await producer.add<RetryData>('retry', {}, { backoff: { type: 'fixed', delay: 0 } });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed');
    await waitFor(async () => (await admin.getJob(witness.id))?.status === 'completed', 'the other job completed');
    const info = await admin.getJob(job.id);
    expect(info).toMatchObject({
      status: 'failed',
      attempts: 1,
      maxAttempts: 5,
      lockedBy: null,
      leaseUntil: null,
      error: { name: 'UnrecoverableError', message: `account ${job.id} is gone`, attempt: 1 },
    });
    expect(info!.finishedAt).toBeInstanceOf(Date);
    expect(starts.get(job.id)!.map((run) => run.attempt)).toEqual([1]);
  });

  it('keeps the last error (name, message, stack, attempt) on a job that ran out of attempts', async () => {
    const { producer, admin } = await openApp();
    const job = await producer.add<RetryData>('retry', { failTimes: 99 }, { maxAttempts: 3, backoff: { type: 'fixed', delay: 10 } });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed for good');
    const info = (await admin.getJob(job.id))!;
    expect(info).toMatchObject({ status: 'failed', attempts: 3, error: { name: 'Error', message: 'planned failure 3', attempt: 3 } });
    expect(info.error!.stack).toContain('planned failure 3');
    expect(info.error!.stack).toContain('runAndMaybeThrow');
    expect(info.finishedAt!.getTime()).toBeGreaterThanOrEqual(starts.get(job.id)![2].threwAt!);
    expect(starts.get(job.id)!.map((run) => run.attempt)).toEqual([1, 2, 3]);
    // Every earlier attempt's error is kept with it, newest first, each with its stack.
    expect(info.error!.previous).toEqual([
      expect.objectContaining({
        name: 'Error',
        message: 'planned failure 2',
        attempt: 2,
        stack: expect.stringContaining('planned failure 2'),
      }),
      expect.objectContaining({
        name: 'Error',
        message: 'planned failure 1',
        attempt: 1,
        stack: expect.stringContaining('planned failure 1'),
      }),
    ]);
    expect(info.error!.previous!.every((earlier) => earlier.previous === undefined)).toBe(true);
  });
});
