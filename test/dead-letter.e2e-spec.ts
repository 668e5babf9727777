/**
 * Dead letters: a job that fails for good is also enqueued into its processor's `deadLetter` queue, in the statement
 * that failed it, for each of the four ways of failing for good (attempts spent, UnrecoverableError, a timeout on the
 * last attempt, an expired lease on the last attempt: a process killed with -9). The original stays failed; the dead
 * letter carries data and name, and its origin and last error on JobInfo. `admin.redrive` sends dead letters back as
 * fresh jobs, atomically. Bad input is refused with typed errors and writes nothing. The module default is recorded
 * by the process that runs the queue's processor, and applies to a lease another process recovers.
 */
import {
  InvalidArgumentError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  Job,
  JobTimeoutError,
  LeaseExpiredError,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  UnrecoverableError,
} from '../lib';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { defineProcessor } from './fixtures/define-processor';
import { startChildApp } from './support/child-app';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { shortLeases } from './support/test-timings';

interface FailData {
  /** fail: throw an Error; unrecoverable: throw UnrecoverableError; hang: never settle (timeout). */
  mode: 'fail' | 'unrecoverable' | 'hang';
  n: number;
}

/** Jobs whose next run succeeds: set before a redrive. */
const healed = new Set<number>();
const runs: { queue: string; id: string; attempt: number }[] = [];

async function failing(job: Job<FailData>): Promise<string> {
  runs.push({ queue: job.queue, id: job.id, attempt: job.attempt });
  if (healed.has(job.data.n)) return `healed ${job.data.n}`;
  if (job.data.mode === 'unrecoverable') throw new UnrecoverableError(`job ${job.data.n} cannot succeed`);
  if (job.data.mode === 'hang') return new Promise<string>(() => undefined);
  throw new Error(`planned failure ${job.attempt}`);
}

@Processor('dl-source', { maxAttempts: 2, backoff: { type: 'fixed', delay: 10 }, timeout: 300, deadLetter: 'dl-dead', concurrency: 4 })
class SourceProcessor implements QueueProcessor<FailData, string> {
  process(job: Job<FailData>): Promise<string> {
    return failing(job);
  }
}

@Processor('dl-plain', { maxAttempts: 1 })
class PlainProcessor implements QueueProcessor<FailData, string> {
  process(job: Job<FailData>): Promise<string> {
    return failing(job);
  }
}

describeEachBackend('dead letters', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  beforeEach(() => {
    healed.clear();
    runs.length = 0;
  });

  async function open(module = {}) {
    const app = await current.startApp({ module: { pollInterval: 50, ...module }, providers: [SourceProcessor, PlainProcessor] });
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  async function deadLetterOf(admin: QueueAdmin, id: string) {
    const letters = await admin.getJobs('dl-dead', { limit: 100 });
    return letters.find((letter) => letter.deadLetter?.jobId === id);
  }

  it.each([
    ['attempts spent', 'fail', 2, Error.name],
    ['UnrecoverableError', 'unrecoverable', 1, UnrecoverableError.name],
    ['a timeout on the last attempt', 'hang', 2, JobTimeoutError.name],
  ] as const)(
    '%s: the job stays failed and a dead letter with its data, name, origin and error is enqueued',
    async (_, mode, attempts, error) => {
      const { producer, admin } = await open();
      const job = await producer.add<FailData>('dl-source', { mode, n: 1 }, { name: 'charge' });
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed for good', 10_000);
      const failed = (await admin.getJob(job.id))!;
      expect(failed).toMatchObject({ status: 'failed', attempts, deadLetter: null });
      expect(failed.error?.name).toBe(error);
      const letter = await deadLetterOf(admin, job.id);
      expect(letter).toMatchObject({
        queue: 'dl-dead',
        status: 'pending',
        name: 'charge',
        data: { mode, n: 1 },
        attempts: 0,
        maxAttempts: 2,
        deadLetter: { queue: 'dl-source', jobId: job.id, error: { name: error, attempt: attempts } },
      });
    },
  );

  it('a job that fails without a deadLetter processor option enqueues nothing anywhere', async () => {
    const { producer, admin } = await open();
    const job = await producer.add<FailData>('dl-plain', { mode: 'fail', n: 2 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed');
    expect((await admin.getCounts()).pending).toBe(0);
    expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'dl-dead', sources: ['dl-source'], count: 0 }]);
  });

  it('the module default applies to processors that name none', async () => {
    const { producer, admin } = await open({ deadLetter: 'dl-dead' });
    const job = await producer.add<FailData>('dl-plain', { mode: 'fail', n: 3 });
    await waitFor(async () => (await deadLetterOf(admin, job.id)) !== undefined, 'the dead letter of dl-plain arrived');
    expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'dl-dead', sources: ['dl-plain', 'dl-source'], count: 1 }]);
  });

  it('a processor that says deadLetter: null clears the dead-letter queue an earlier deploy recorded for its queue', async () => {
    // The earlier deploy: the module default sends dl-plain's failures to dl-dead.
    const earlier = await current.startApp({
      module: { pollInterval: 50, deadLetter: 'dl-dead' },
      providers: [SourceProcessor, PlainProcessor],
    });
    expect(await earlier.get(QueueAdmin).listDeadLetterQueues()).toEqual([
      { queue: 'dl-dead', sources: ['dl-plain', 'dl-source'], count: 0 },
    ]);
    await current.close(earlier);
    const Unlettered = defineProcessor<FailData>('dl-plain', failing, { maxAttempts: 1, deadLetter: null });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [SourceProcessor, Unlettered] });
    const admin = app.get(QueueAdmin);
    expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'dl-dead', sources: ['dl-source'], count: 0 }]);
    const job = await app.get(QueueProducer).add<FailData>('dl-plain', { mode: 'fail', n: 4 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the dl-plain job failed');
    // The dead letter would have been written by the statement that failed the job: there is none.
    expect(await deadLetterOf(admin, job.id)).toBeUndefined();
  });

  it('redrive sends dead letters back as fresh jobs and empties the dead-letter queue, atomically; limit takes the oldest', async () => {
    const { producer, admin } = await open();
    const jobs = [];
    // One after the other: their dead letters arrive in this order, and the oldest are redriven first.
    for (const n of [1, 2, 3]) {
      const job = await producer.add<FailData>('dl-source', { mode: 'unrecoverable', n }, { name: `n${n}` });
      await waitFor(async () => (await deadLetterOf(admin, job.id)) !== undefined, `the dead letter of n${n} arrived`);
      jobs.push(job);
    }
    await waitFor(async () => (await admin.getCounts('dl-dead')).pending === 3, 'three dead letters arrived');
    [1, 2, 3].forEach((n) => healed.add(n));

    expect(await admin.redrive('dl-dead', { limit: 2 })).toBe(2);
    expect((await admin.getCounts('dl-dead')).pending).toBe(1);
    await waitFor(async () => (await admin.getCounts('dl-source')).completed === 2, 'the two redriven jobs completed');
    const redriven = (await admin.getJobs('dl-source', { status: 'completed' })).sort((a, b) => a.name!.localeCompare(b.name!));
    expect(redriven.map((job) => [job.name, job.data, job.attempts, job.deadLetter])).toEqual([
      ['n1', { mode: 'unrecoverable', n: 1 }, 1, null],
      ['n2', { mode: 'unrecoverable', n: 2 }, 1, null],
    ]);
    // The originals stay failed beside them.
    for (const job of jobs) expect((await admin.getJob(job.id))?.status).toBe('failed');

    expect(await admin.redrive('dl-dead')).toBe(1);
    expect(await admin.redrive('dl-dead')).toBe(0);
    await waitFor(async () => (await admin.getCounts('dl-source')).completed === 3, 'the third redriven job completed');
    expect(await admin.getCounts('dl-dead')).toMatchObject({ pending: 0, running: 0, failed: 0 });
  });

  it('bad redrive input is refused with typed errors and moves nothing', async () => {
    const { producer, admin } = await open();
    await producer.add<FailData>('dl-source', { mode: 'unrecoverable', n: 9 });
    await waitFor(async () => (await admin.getCounts('dl-dead')).pending === 1, 'a dead letter arrived');
    for (const options of [{ limit: 0 }, { limit: -1 }, { limit: 1.5 }, { limit: NaN }, { max: 1 }]) {
      await expect(admin.redrive('dl-dead', options as { limit: number })).rejects.toThrow(InvalidArgumentError);
    }
    await expect(admin.redrive('no such queue!')).rejects.toThrow('queue');
    expect((await admin.getCounts('dl-dead')).pending).toBe(1);
  });

  it('an expired lease on the last attempt (its process killed with -9): recovery fails it and dead-letters it', async () => {
    const { producer, admin } = await open(shortLeases(backend));
    const child = startChildApp({
      connection: current.db.options,
      module: shortLeases(backend),
      queues: [{ name: 'dl-crash', maxAttempts: 1, deadLetter: 'dl-dead' }],
    });
    await child.printed('READY');
    // This app has no processor of dl-crash: the job's last attempt is its first because the job says so.
    const job = await producer.add('dl-crash', { kill: true }, { name: 'doomed', maxAttempts: 1 });
    expect(await child.exited).not.toBe(0);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'recovery failed the job', 15_000);
    const letter = await deadLetterOf(admin, job.id);
    expect(letter).toMatchObject({
      name: 'doomed',
      data: { kill: true },
      deadLetter: { queue: 'dl-crash', jobId: job.id, error: { name: LeaseExpiredError.name, attempt: 1 } },
    });
  }, 60_000); // one child start, then a lease (1.6 s) to expire

  it('the module default reaches a lease recovered by a process without it: the queue records it where its processor runs', async () => {
    // Process A runs dl-crash-default's processor, which names no deadLetter, with the module default, and dies on the
    // job's last attempt. Process B (this app) has neither that processor nor the default, boots after A and recovers
    // the lease: the dead letter still arrives, because A recorded the queue's dead-letter queue at its start, and a
    // job can only be running where its processor runs.
    const child = startChildApp({
      connection: current.db.options,
      module: { ...shortLeases(backend), deadLetter: 'dl-dead' },
      queues: [{ name: 'dl-crash-default', maxAttempts: 1 }],
    });
    await child.printed('READY');
    const { producer, admin } = await open(shortLeases(backend));
    expect(await admin.listDeadLetterQueues()).toEqual([{ queue: 'dl-dead', sources: ['dl-crash-default', 'dl-source'], count: 0 }]);
    // This app has no processor of the queue, so the job's options are its own: its first attempt is its last.
    const job = await producer.add('dl-crash-default', { kill: true }, { name: 'doomed', maxAttempts: 1 });
    expect(await child.exited).not.toBe(0);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'recovery failed the job', 15_000);
    expect((await admin.getJob(job.id))?.error?.name).toBe(LeaseExpiredError.name);
    const letter = await deadLetterOf(admin, job.id);
    expect(letter).toMatchObject({
      name: 'doomed',
      data: { kill: true },
      deadLetter: { queue: 'dl-crash-default', jobId: job.id, error: { name: LeaseExpiredError.name, attempt: 1 } },
    });
  }, 60_000); // one child start, then a lease (1.6 s) to expire

  it.each([
    ['the queue itself', 'dl-self'],
    ['an invalid queue name', 'not a queue!'],
    ['a number', 5],
  ])('a processor whose deadLetter names %s fails boot with InvalidProcessorError, writing nothing', async (_, deadLetter) => {
    @Processor('dl-self', { deadLetter: deadLetter as string })
    class SelfProcessor implements QueueProcessor {
      async process(): Promise<void> {}
    }
    // On a database of its own; closed after the test (close() rethrows the failed init, see closeApp).
    const module = await current.compileApp({ providers: [SelfProcessor] }, current.otherDatabase());
    const error = await module.init().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(InvalidProcessorError);
  });
});

describe('dead letters: bad module options', () => {
  it.each(['', 'bad name', 7])('module option deadLetter %p is refused', (deadLetter) => {
    expect(() => resolveModuleOptions({ deadLetter: deadLetter as string })).toThrow(InvalidModuleOptionsError);
  });
});
