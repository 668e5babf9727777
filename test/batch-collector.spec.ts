import { InvalidBatchResultError } from '../lib/errors/invalid-batch-result.error';
import { Job } from '../lib/interfaces/job.interface';
import { JobRecord } from '../lib/storage/queue-storage.interface';
import { BatchCollector } from '../lib/worker/batch-collector';
import { isUnrecoverable } from '../lib/worker/retry-policy';
import { JobWriters, toJob } from '../lib/worker/job-runtime';
import { LazyAbortController } from '../lib/worker/lazy-abort-controller';
import { runningRecord } from './support/job-record';

const NOW = 1_700_000_000_000;

function record(id: string): JobRecord {
  return runningRecord({ id }, NOW);
}

const writers = {} as JobWriters;
const children = { childrenOf: () => Promise.resolve([]), dependenciesOf: () => Promise.resolve([]) };

/** A job as the worker's runner builds it: its signal comes from the attempt's LazyAbortController. */
function attemptJob(id: string): { job: Job; controller: LazyAbortController } {
  const controller = new LazyAbortController();
  return { job: toJob(record(id), controller, writers, children), controller };
}

describe('BatchCollector', () => {
  afterEach(() => jest.restoreAllMocks());

  it('gathers and settles a batch without creating any job signal (the attempt controller is hooked instead)', async () => {
    const signalRead = jest.spyOn(LazyAbortController.prototype, 'signal', 'get');
    const calls: string[][] = [];
    const collector = new BatchCollector(
      'q',
      { process: async (jobs: Job[]) => (calls.push(jobs.map((j) => j.id)), jobs.map((j) => j.id)) },
      { size: 2 },
    );
    const [a, b] = [attemptJob('a'), attemptJob('b')];
    await expect(Promise.all([collector.process(a.job), collector.process(b.job)])).resolves.toEqual(['a', 'b']);
    expect(calls).toEqual([['a', 'b']]);
    expect(signalRead).not.toHaveBeenCalled();
    // Settled: the hook is gone, so a late abort (a cancel after the outcome) touches nothing of the batch.
    a.controller.abort(new Error('late'));
    expect(a.job.signal.aborted).toBe(true);
  });

  it('takes a job whose attempt aborts while its batch fills out of that batch, rejected with the reason', async () => {
    const calls: string[][] = [];
    const collector = new BatchCollector(
      'q',
      { process: async (jobs: Job[]) => void calls.push(jobs.map((j) => j.id)) },
      { size: 3, maxWaitMs: 60_000 },
    );
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(attemptJob);
    const settledA = collector.process(a.job);
    const settledB = collector.process(b.job);
    const reason = new Error('cancelled');
    b.controller.abort(reason);
    // Told once: a second abort (a shutdown after a cancel) has nothing more to say.
    b.controller.abort(new Error('again'));
    await expect(settledB).rejects.toBe(reason);
    expect(b.job.signal.reason).toBe(reason);
    const settledC = collector.process(c.job);
    const settledD = collector.process(d.job);
    await expect(Promise.all([settledA, settledC, settledD])).resolves.toEqual([undefined, undefined, undefined]);
    expect(calls).toEqual([['a', 'c', 'd']]);
  });

  it('settles a running job alone when its attempt aborts, its item ignored, the others from their own items', async () => {
    let finish!: (items: unknown[]) => void;
    const collector = new BatchCollector('q', { process: () => new Promise<unknown[]>((resolve) => (finish = resolve)) }, { size: 2 });
    const [a, b] = [attemptJob('a'), attemptJob('b')];
    const settledA = collector.process(a.job);
    const settledB = collector.process(b.job);
    const timeout = new Error('timed out');
    a.controller.abort(timeout);
    await expect(settledA).rejects.toBe(timeout);
    finish(['ignored', 'b done']);
    await expect(settledB).resolves.toBe('b done');
  });

  it('fails alone each job whose item throws when read (a revoked Proxy, a throwing then), the others from their items', async () => {
    const revoked = Proxy.revocable({}, {});
    revoked.revoke();
    const getterError = new Error('then getter');
    const throwingThen = {
      get then(): never {
        throw getterError;
      },
    };
    const unheard: unknown[] = [];
    const hear = (reason: unknown) => unheard.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const collector = new BatchCollector(
        'q',
        // The revoked Proxy also comes as what a promise item resolves to: read only once it settled.
        { process: async () => ['a done', revoked.proxy, throwingThen, Promise.resolve(revoked.proxy), 'e done'] },
        { size: 5 },
      );
      const settled = ['a', 'b', 'c', 'd', 'e'].map((id) => collector.process(attemptJob(id).job).then(String, (error: Error) => error));
      const [a, b, c, d, e] = await Promise.all(settled);
      expect([a, e]).toEqual(['a done', 'e done']);
      expect(b).toBeInstanceOf(TypeError);
      expect(c).toBe(getterError);
      expect(d).toBeInstanceOf(TypeError);
      await new Promise((resolve) => setImmediate(resolve));
      expect(unheard).toEqual([]);
    } finally {
      process.off('unhandledRejection', hear);
    }
  });

  it('fails for good the job whose item is a hole (an index never assigned); an explicit undefined completes its job', async () => {
    const collector = new BatchCollector(
      'q',
      {
        process: async () => {
          const results: unknown[] = new Array(3);
          results[0] = 'a done';
          results[2] = undefined;
          return results;
        },
      },
      { size: 3 },
    );
    const [a, b, c] = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        collector.process(attemptJob(id).job).then(
          (value) => value,
          (error: Error) => error,
        ),
      ),
    );
    expect(a).toBe('a done');
    expect(b).toBeInstanceOf(InvalidBatchResultError);
    expect(b).toMatchObject({ queue: 'q', jobs: 3, items: 3, hole: 1 });
    expect((b as Error).message).toContain('hole at index 1');
    expect(c).toBeUndefined();
    expect(isUnrecoverable(b)).toBe(true);
  });

  it('fails each job whose item is a promise that resolves to an Error (an async map that returns its caught errors)', async () => {
    const caught = new Error('b failed');
    const collector = new BatchCollector(
      'q',
      { process: async (jobs: Job[]) => jobs.map(async (job) => (job.id === 'b' ? caught : `${job.id} done`)) },
      { size: 3 },
    );
    const [a, b, c] = ['a', 'b', 'c'].map((id) => collector.process(attemptJob(id).job).then(String, (error: Error) => error));
    expect(await Promise.all([a, b, c])).toEqual(['a done', caught, 'c done']);
    expect(await b).toBe(caught);
  });

  it('rejects a job whose attempt aborted before it reached the collector, never calling the batch with it', async () => {
    const process = jest.fn(async () => undefined);
    const collector = new BatchCollector('q', { process }, { size: 1 });
    const a = attemptJob('a');
    const reason = new Error('shutdown');
    a.controller.abort(reason);
    await expect(collector.process(a.job)).rejects.toBe(reason);
    expect(process).not.toHaveBeenCalled();
  });

  it('still hears the abort of a Job built elsewhere through its signal', async () => {
    const calls: string[][] = [];
    const collector = new BatchCollector(
      'q',
      { process: async (jobs: Job[]) => void calls.push(jobs.map((j) => j.id)) },
      { size: 2, maxWaitMs: 60_000 },
    );
    const controller = new AbortController();
    const foreign = { ...attemptJob('x').job, id: 'x', signal: controller.signal } as Job;
    const settled = collector.process(foreign);
    const reason = new Error('cancelled');
    controller.abort(reason);
    await expect(settled).rejects.toBe(reason);
    const [a, b] = [attemptJob('a'), attemptJob('b')];
    await Promise.all([collector.process(a.job), collector.process(b.job)]);
    expect(calls).toEqual([['a', 'b']]);
  });
});
