import { Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { InvalidJobProgressError } from '../lib/errors/invalid-job-progress.error';
import { JobNotRunningError } from '../lib/errors/job-not-running.error';
import { JobTimeoutError } from '../lib/errors/job-timeout.error';
import { UnrecoverableError } from '../lib/errors/unrecoverable.error';
import { UnsupportedTransactionError } from '../lib/errors/unsupported-transaction.error';
import { JobEventBus } from '../lib/events/job-event-bus';
import { Job } from '../lib/interfaces/job.interface';
import { QueueEvent } from '../lib/interfaces/queue-event.interface';
import { JobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';
import { transactionRunnerOf } from '../lib/storage/transactions/transaction-statements';
import { AttemptRunner, RunningAttempt } from '../lib/worker/attempt-runner';
import { LazyAbortController } from '../lib/worker/lazy-abort-controller';
import { runningRecord } from './support/job-record';

const NOW = 1_700_000_000_000;

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return runningRecord({ id: '7', data: '{"n":1}', ...overrides }, NOW);
}

function running(overrides: Partial<JobRecord> = {}): RunningAttempt {
  const attempt = record(overrides);
  const ref = { id: attempt.id, attempt: attempt.attempts, startedAt: NOW };
  return { record: attempt, controller: new LazyAbortController(), abandoned: false, writeQueued: false, ref };
}

/** Keeps what the runner logs. */
class CapturingLogger extends Logger {
  readonly lines: string[] = [];
  override error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  override warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
}

/**
 * A runner around `handle`, with a stand-in storage for progress (and the stored error a failure reads back: none),
 * an injected clock and a processor timeout.
 */
function setUp(
  handle: (job: Job) => unknown,
  options: { timeout?: number; current?: boolean; owned?: boolean; storage?: Partial<QueueStorage> } = {},
) {
  const events = new JobEventBus();
  const heard: QueueEvent[] = [];
  events.events$.subscribe((event) => heard.push(event));
  const logger = new CapturingLogger('test');
  const updateProgress = jest.fn(async () => options.owned ?? true);
  const runner = new AttemptRunner({
    queue: 'q',
    processor: { process: async (job) => handle(job) },
    timeout: options.timeout,
    backoff: { type: 'fixed', delay: 250 },
    storage: { updateProgress, getJob: async () => null, ...options.storage } as unknown as QueueStorage,
    workerId: 'w',
    events,
    logger,
    isCurrent: () => options.current ?? true,
    now: () => NOW,
    onCommitted: () => undefined,
  });
  return { runner, heard, logger, updateProgress };
}

describe('AttemptRunner (unit): a handler run becomes an outcome', () => {
  it('a result becomes a completion with its JSON; no result is stored as null', async () => {
    expect(await setUp(() => ({ ok: [1, 'two'] })).runner.run(running())).toEqual({ kind: 'complete', json: '{"ok":[1,"two"]}' });
    expect(await setUp(() => undefined).runner.run(running())).toEqual({ kind: 'complete', json: null });
  });

  it('hands the handler the stored job', async () => {
    let seen: Job | undefined;
    await setUp((job) => (seen = job) && undefined).runner.run(running({ attempts: 2 }));
    expect(seen).toMatchObject({ id: '7', queue: 'q', data: { n: 1 }, attempt: 2, maxAttempts: 3 });
  });

  it('a throw with attempts left becomes a retry due after the backoff, from the injected clock, logged as a warning', async () => {
    const { runner, logger } = setUp(() => {
      throw new Error('boom');
    });
    expect(await runner.run(running())).toEqual({
      kind: 'retry',
      error: expect.objectContaining({ name: 'Error', message: 'boom', attempt: 1 }),
      runAt: NOW + 250,
    });
    expect(logger.lines).toEqual([expect.stringMatching(/^warn Job 7 \(queue q\) attempt 1\/3 failed, retrying in 250 ms: Error: boom/)]);
  });

  it("warns once about a stored backoff it cannot read and retries with the queue's", async () => {
    const { runner, logger } = setUp(() => {
      throw new Error('boom');
    });
    expect(await runner.run(running({ backoff: '{"type":"linear"}' }))).toMatchObject({ kind: 'retry', runAt: NOW + 250 });
    expect(logger.lines.filter((line) => line.includes('stored backoff'))).toHaveLength(1);
  });

  it('an unrecoverable throw, or the last attempt, becomes a failure logged as an error', async () => {
    const unrecoverable = setUp(() => {
      throw new UnrecoverableError('never');
    });
    expect(await unrecoverable.runner.run(running())).toMatchObject({ kind: 'fail', error: { name: 'UnrecoverableError' } });
    const last = setUp(() => Promise.reject(new Error('again')));
    expect(await last.runner.run(running({ attempts: 3 }))).toMatchObject({ kind: 'fail', error: { message: 'again' } });
    expect(last.logger.lines).toEqual([expect.stringContaining('attempt 3/3 failed for good: Error: again')]);
  });

  it('a result JSON would change fails the job for good with InvalidJobResultError, even with attempts left', async () => {
    const { runner } = setUp(() => ({ when: new Date(0) }));
    expect(await runner.run(running())).toMatchObject({ kind: 'fail', error: { name: 'InvalidJobResultError' } });
  });

  it('stored data that is not JSON fails the job without calling the handler', async () => {
    const handle = jest.fn();
    const { runner } = setUp(handle);
    expect(await runner.run(running({ data: '{oops' }))).toMatchObject({ kind: 'fail', error: { name: 'InvalidStoredDataError' } });
    expect(handle).not.toHaveBeenCalled();
  });

  it('an attempt abandoned while it ran (cancelled, handed back) has no outcome to save, whatever its handler did', async () => {
    const attempt = running();
    const threw = setUp(() => {
      attempt.abandoned = true;
      throw new Error('aborted');
    });
    expect(await threw.runner.run(attempt)).toEqual({ kind: 'abandoned' });
    expect(threw.logger.lines).toEqual([]);
    const other = running();
    const returned = setUp(() => {
      other.abandoned = true;
      return 'late';
    });
    expect(await returned.runner.run(other)).toEqual({ kind: 'abandoned' });
  });
});

describe('AttemptRunner (unit): timeouts, with fake timers', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it("fails an attempt that outlives the processor's timeout with JobTimeoutError and aborts its signal", async () => {
    let signal: AbortSignal | undefined;
    const { runner } = setUp(
      (job) => {
        signal = job.signal;
        return new Promise(() => undefined);
      },
      { timeout: 1_000 },
    );
    const outcome = runner.run(running());
    await jest.advanceTimersByTimeAsync(999);
    expect(signal?.aborted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ kind: 'retry', error: { name: 'JobTimeoutError' } });
    expect(signal?.reason).toBeInstanceOf(JobTimeoutError);
  });

  it("the job's own timeout wins over the processor's, and a handler that finishes in time leaves no timer behind", async () => {
    const slow = setUp(() => new Promise(() => undefined), { timeout: 60_000 });
    const outcome = slow.runner.run(running({ timeout: 50 }));
    await jest.advanceTimersByTimeAsync(50);
    expect(await outcome).toMatchObject({ kind: 'retry', error: { name: 'JobTimeoutError', message: 'Job 7 timed out after 50 ms' } });
    const quick = setUp(() => new Promise((resolve) => setTimeout(() => resolve(1), 10)), { timeout: 1_000 });
    const done = quick.runner.run(running());
    await jest.advanceTimersByTimeAsync(10);
    expect(await done).toEqual({ kind: 'complete', json: '1' });
    expect(jest.getTimerCount()).toBe(0);
  });
});

describe('AttemptRunner (unit): progress', () => {
  it('stores progress of the current attempt, fenced by worker id and attempt, and announces it', async () => {
    const { runner, heard, updateProgress } = setUp(async (job) => {
      await job.updateProgress({ step: 2 });
      return undefined;
    });
    await runner.run(running({ attempts: 2 }));
    expect(updateProgress).toHaveBeenCalledWith({ id: '7', attempt: 2 }, 'w', '{"step":2}', NOW);
    expect(heard).toMatchObject([{ type: 'progress', jobId: '7', attempt: 2, progress: { step: 2 } }]);
  });

  it('refuses progress of an attempt that is no longer current, or that the database says is not ours', async () => {
    for (const options of [{ current: false }, { owned: false }]) {
      let thrown: unknown;
      const { runner, heard } = setUp(async (job) => {
        thrown = await job.updateProgress(50).catch((error: unknown) => error);
        return undefined;
      }, options);
      await runner.run(running());
      expect(thrown).toBeInstanceOf(JobNotRunningError);
      expect(heard).toEqual([]);
    }
  });

  it('refuses a progress value that is not a number or a plain object with InvalidJobProgressError, writing nothing', async () => {
    let thrown: unknown;
    const { runner, updateProgress } = setUp(async (job) => {
      thrown = await job.updateProgress('half' as never).catch((error: unknown) => error);
      return undefined;
    });
    await runner.run(running());
    expect(thrown).toBeInstanceOf(InvalidJobProgressError);
    expect(updateProgress).not.toHaveBeenCalled();
  });
});

describe('AttemptRunner (unit): job.completeIn', () => {
  it("a manager whose transaction has ended is refused in completeIn's words before anything is written", async () => {
    // The transaction is watched before the write (so one that ends while the write's reply is on its way is still
    // heard): a manager of no open transaction fails that watch, the storage's own check as it runs on the real manager.
    const ended = { queryRunner: { query: async () => [], isTransactionActive: false, isReleased: false } } as unknown as EntityManager;
    let thrown: unknown;
    const completeIn = jest.fn(async () => true);
    const { runner } = setUp(
      async (job) => {
        thrown = await job.completeIn(ended, 'done').catch((error: unknown) => error);
        return 'returned';
      },
      { storage: { completeIn, afterCommitOf: (manager) => void transactionRunnerOf(manager!) } },
    );
    const outcome = await runner.run(running());
    expect(thrown).toBeInstanceOf(UnsupportedTransactionError);
    expect(thrown).toMatchObject({ reason: 'not-a-transaction', call: 'complete' });
    expect((thrown as Error).message).toContain('job.completeIn(manager) needs the EntityManager of an open transaction');
    // Nothing written: the attempt ends as the handler ends it, here with what it returned after catching the refusal.
    expect(completeIn).not.toHaveBeenCalled();
    expect(outcome).toMatchObject({ kind: 'complete', json: '"returned"' });
  });
});
