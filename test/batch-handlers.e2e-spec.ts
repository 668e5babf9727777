import { TestingModule } from '@nestjs/testing';
import { InvalidBatchResultError, InvalidProcessorError, Job, JobInfo, ProcessorOptions, QueueAdmin, QueueProducer } from '../lib';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';
import { waitFor } from './support/wait-for';
import { defineBatchProcessor } from './fixtures/define-processor';

type Item = { n: number; mode?: 'fail-once' | 'fail' | 'reject' | 'hang' };

/** A promise and its resolver, for a handler that waits until the test lets it go. */
function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Batch processors (`@Processor(queue, { batch })`): one call per batch, one outcome per job. */
describeEachBackend('batch handlers', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let app: TestingModule;
  /** The job ids of each call, in call order. */
  let calls: string[][];
  const admin = () => app.get(QueueAdmin);
  const producer = () => app.get(QueueProducer);
  const start = async (handle: (jobs: Job<Item>[]) => Promise<unknown>, options: ProcessorOptions, shutdownTimeout?: number) => {
    calls = [];
    const Batch = defineBatchProcessor<Item>(
      'batch',
      (jobs) => {
        calls.push(jobs.map((job) => job.id));
        return handle(jobs);
      },
      options,
    );
    app = await current.startApp({ module: { pollInterval: 20, ...(shutdownTimeout ? { shutdownTimeout } : {}) }, providers: [Batch] });
  };
  const addAll = async (items: Item[], options: Parameters<QueueProducer['add']>[2] = {}) => {
    const ids: string[] = [];
    // One transaction-free add each, in order; the processor only sees them once claimed.
    for (const item of items) ids.push((await producer().add('batch', item, options)).id);
    return ids;
  };
  const finished = async (ids: string[]): Promise<JobInfo[]> => {
    await waitFor(
      async () => {
        const jobs = await Promise.all(ids.map((id) => admin().getJob(id)));
        return jobs.every((job) => job?.status === 'completed' || job?.status === 'failed');
      },
      `jobs ${ids.join(', ')} finished`,
    );
    return (await Promise.all(ids.map((id) => admin().getJob(id)))) as JobInfo[];
  };

  it('gives each job its own item: a value is its result, an Error or a rejected promise fails it alone, retried', async () => {
    const hold = gate();
    await start(
      async (jobs) => {
        await hold.promise;
        return jobs.map((job) => {
          if (job.data.mode === 'fail-once' && job.attempt === 1) return new Error(`item ${job.data.n} failed`);
          if (job.data.mode === 'reject') return Promise.reject(new Error(`item ${job.data.n} rejected`));
          return job.data.n * 10;
        });
      },
      { batch: { size: 5, maxWaitMs: 50 }, maxAttempts: 2, backoff: { type: 'fixed', delay: 0 } },
    );
    await app.get(QueueAdmin).pause('batch');
    const ids = await addAll([{ n: 1 }, { n: 2, mode: 'fail-once' }, { n: 3 }, { n: 4, mode: 'reject' }, { n: 5 }]);
    await admin().resume('batch');
    await waitFor(() => calls.length === 1, 'the first batch called');
    hold.open();
    const jobs = await finished(ids);
    // The five went in one call: the claim took them together.
    expect(calls[0].sort()).toEqual([...ids].sort());
    expect(jobs.map((job) => [job.status, job.result, job.attempts])).toEqual([
      ['completed', 10, 1],
      ['completed', 20, 2],
      ['completed', 30, 1],
      ['failed', null, 2],
      ['completed', 50, 1],
    ]);
    expect(jobs[3].error).toMatchObject({ message: 'item 4 rejected', attempt: 2 });
    // Only the failed items ran again, without the others.
    expect(calls.slice(1).flat().sort()).toEqual([ids[1], ids[3]].sort());
  });

  it('completes every job with a single returned value, or none; a throw fails the attempt of every job', async () => {
    await start(
      async (jobs) => {
        if (jobs.some((job) => job.data.mode === 'fail')) throw new Error('the whole batch failed');
        return jobs[0].data.n === 0 ? undefined : 'same for all';
      },
      { batch: { size: 3 }, maxAttempts: 1 },
    );
    await admin().pause('batch');
    const all = await addAll([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await admin().resume('batch');
    expect((await finished(all)).map((job) => job.result)).toEqual(['same for all', 'same for all', 'same for all']);
    await admin().pause('batch');
    const none = await addAll([{ n: 0 }, { n: 1 }]);
    await admin().resume('batch');
    expect((await finished(none)).map((job) => [job.status, job.result])).toEqual([
      ['completed', null],
      ['completed', null],
    ]);
    await admin().pause('batch');
    const thrown = await addAll([{ n: 1 }, { n: 2, mode: 'fail' }]);
    await admin().resume('batch');
    const failed = await finished(thrown);
    expect(failed.map((job) => [job.status, job.error?.message])).toEqual([
      ['failed', 'the whole batch failed'],
      ['failed', 'the whole batch failed'],
    ]);
  });

  it('fails every job for good with InvalidBatchResultError when the array has another length', async () => {
    await start(async (jobs) => jobs.slice(1).map(() => 'x'), { batch: { size: 2 }, maxAttempts: 3 });
    await admin().pause('batch');
    const ids = await addAll([{ n: 1 }, { n: 2 }]);
    await admin().resume('batch');
    const jobs = await finished(ids);
    for (const job of jobs) {
      expect(job).toMatchObject({ status: 'failed', attempts: 1, error: { name: InvalidBatchResultError.name } });
    }
  });

  it('fails the jobs whose items cannot be read, rejects no promise unheard: a hostile array, a revoked one, a wrong length of rejections', async () => {
    const unheard: unknown[] = [];
    const hear = (reason: unknown) => unheard.push(reason);
    process.on('unhandledRejection', hear);
    try {
      const lengthError = new Error('length read');
      const itemError = new Error('item 2 read');
      await start(
        async (jobs) => {
          const values = jobs.map((job) => job.data.n * 10);
          if (jobs[0].data.n === 1) {
            // An array whose second item throws when read: that job fails alone.
            return new Proxy(values, {
              get: (target, key, receiver) => {
                if (key === '1') throw itemError;
                return Reflect.get(target, key, receiver) as unknown;
              },
            });
          }
          if (jobs[0].data.n === 4) {
            // An array whose length throws when read: which item is whose cannot be told, every job fails.
            return new Proxy(values, {
              get: (target, key, receiver) => {
                if (key === 'length') throw lengthError;
                return Reflect.get(target, key, receiver) as unknown;
              },
            });
          }
          if (jobs[0].data.n === 6) {
            const revoked = Proxy.revocable([], {});
            revoked.revoke();
            return revoked.proxy;
          }
          // One item short, each a rejection: refused for its length, its promises still heard.
          return jobs.slice(1).map((job) => Promise.reject(new Error(`item ${job.data.n} rejected`)));
        },
        { batch: { size: 3, maxWaitMs: 200 }, maxAttempts: 1 },
      );
      const batches = [
        [{ n: 1 }, { n: 2 }, { n: 3 }],
        [{ n: 4 }, { n: 5 }],
        [{ n: 6 }, { n: 7 }],
        [{ n: 8 }, { n: 9 }, { n: 10 }],
      ];
      const ids: string[][] = [];
      for (const items of batches) {
        await admin().pause('batch');
        ids.push(await addAll(items));
        await admin().resume('batch');
        // Each set of jobs in a call of its own.
        await finished(ids[ids.length - 1]);
      }
      const [hostile, noLength, revoked, rejections] = await Promise.all(ids.map((set) => finished(set)));
      expect(hostile.map((job) => [job.status, job.result, job.error?.message ?? null])).toEqual([
        ['completed', 10, null],
        ['failed', null, 'item 2 read'],
        ['completed', 30, null],
      ]);
      expect(noLength.map((job) => [job.status, job.error?.message])).toEqual([
        ['failed', 'length read'],
        ['failed', 'length read'],
      ]);
      for (const job of revoked) expect(job).toMatchObject({ status: 'failed', error: { name: 'TypeError' } });
      for (const job of rejections) expect(job).toMatchObject({ status: 'failed', error: { name: InvalidBatchResultError.name } });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unheard).toEqual([]);
    } finally {
      process.off('unhandledRejection', hear);
    }
  });

  it("times out and cancels one job of a running batch alone: its signal aborts, the others complete with the batch's items", async () => {
    const hold = gate();
    const aborted: string[] = [];
    await start(
      async (jobs) => {
        for (const job of jobs) job.signal.addEventListener('abort', () => aborted.push(job.id));
        await hold.promise;
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 4 }, maxAttempts: 1 },
    );
    await admin().pause('batch');
    const [slow] = await addAll([{ n: 1 }], { timeout: 300 });
    const rest = await addAll([{ n: 2 }, { n: 3 }, { n: 4 }]);
    await admin().resume('batch');
    await waitFor(() => calls.length === 1, 'the batch called');
    expect(calls[0]).toHaveLength(4);
    // explain says the job runs as part of a batch, and of what size, once the handler's start is written: the start
    // goes out with the process's next round of outcome writes, so for a moment after the call the job reads as
    // claimed ahead.
    await waitFor(async () => (await admin().explain(rest[1])).reason === 'running', 'the start written');
    expect(await admin().explain(rest[1])).toMatchObject({
      reason: 'running',
      detail: expect.stringContaining('in batches of up to 4, a partial batch waiting at most 0 ms'),
    });
    await admin().cancel(rest[0]);
    await waitFor(async () => (await admin().getJob(slow))?.status === 'failed', 'the timed-out job failed');
    expect((await admin().getJob(slow))?.error?.name).toBe('JobTimeoutError');
    // The batch still runs: the two others wait for it.
    expect((await admin().getJob(rest[1]))?.status).toBe('running');
    expect(aborted.sort()).toEqual([slow, rest[0]].sort());
    hold.open();
    const jobs = await finished(rest.slice(1));
    expect(jobs.map((job) => job.result)).toEqual([3, 4]);
    expect((await admin().getJob(rest[0]))?.status).toBe('cancelled');
    expect(calls).toHaveLength(1);
  });

  it('leaves a job cancelled while its batch waits to fill out of the call', async () => {
    await start(async (jobs) => jobs.map((job) => job.data.n), { batch: { size: 2, maxWaitMs: 60_000 } });
    const [first] = await addAll([{ n: 1 }]);
    await waitFor(async () => (await admin().getJob(first))?.status === 'running', 'the first job claimed');
    await admin().cancel(first);
    const rest = await addAll([{ n: 2 }, { n: 3 }]);
    await waitFor(() => calls.length === 1, 'a batch called');
    expect(calls).toEqual([rest]);
    expect((await finished(rest)).map((job) => job.result)).toEqual([2, 3]);
    expect((await admin().getJob(first))?.status).toBe('cancelled');
  });

  it('counts jobs against concurrency: a batch holds at most size jobs, and concurrency 2 × size runs two batches at once', async () => {
    const hold = gate();
    let running = 0;
    let most = 0;
    await start(
      async (jobs) => {
        running += jobs.length;
        most = Math.max(most, running);
        await hold.promise;
        running -= jobs.length;
        return undefined;
      },
      { batch: { size: 3, maxWaitMs: 20 }, concurrency: 6 },
    );
    await admin().pause('batch');
    const ids = await addAll(Array.from({ length: 9 }, (_, n) => ({ n })));
    await admin().resume('batch');
    await waitFor(() => running === 6, 'two batches running');
    expect(calls.map((call) => call.length)).toEqual([3, 3]);
    hold.open();
    await finished(ids);
    expect(most).toBe(6);
    expect(calls.every((call) => call.length <= 3)).toBe(true);
  });

  it('bounds a batch by the rate limit and the group concurrency: they count jobs, as without a batch', async () => {
    const hold = gate();
    await start(
      async () => {
        await hold.promise;
      },
      { batch: { size: 10, maxWaitMs: 20 }, limiter: { max: 3, duration: 60_000 }, groupConcurrency: 1 },
    );
    await admin().pause('batch');
    const grouped = [...(await addAll([{ n: 1 }, { n: 2 }], { group: 'a' })), ...(await addAll([{ n: 3 }, { n: 4 }], { group: 'b' }))];
    const plain = await addAll([{ n: 5 }, { n: 6 }]);
    await admin().resume('batch');
    await waitFor(async () => (await admin().getCounts('batch')).running === 3, 'three jobs running');
    hold.open();
    await waitFor(async () => (await admin().getCounts('batch')).completed === 3, 'three jobs completed');
    // One job per group at most, three per window in all: the rest wait for the next window.
    expect(calls.flat()).toHaveLength(3);
    const started = calls.flat();
    expect(started.filter((id) => grouped.slice(0, 2).includes(id)).length).toBeLessThanOrEqual(1);
    expect(started.filter((id) => grouped.slice(2).includes(id)).length).toBeLessThanOrEqual(1);
    expect((await admin().getCounts('batch')).pending).toBe(grouped.length + plain.length - 3);
  });

  it('bounds a batch by the global concurrency: it counts jobs across processes', async () => {
    const hold = gate();
    await start(
      async () => {
        await hold.promise;
      },
      { batch: { size: 5, maxWaitMs: 20 }, globalConcurrency: 2 },
    );
    await admin().pause('batch');
    const ids = await addAll(Array.from({ length: 5 }, (_, n) => ({ n })));
    await admin().resume('batch');
    await waitFor(() => calls.length === 1, 'the first batch called');
    expect(calls[0]).toHaveLength(2);
    expect((await admin().getCounts('batch')).running).toBe(2);
    hold.open();
    await finished(ids);
    expect(calls.every((call) => call.length <= 2)).toBe(true);
  });

  it('prefetch counts jobs: the jobs claimed ahead wait for slots, out of the running batch, and form the next one', async () => {
    const hold = gate();
    await start(
      async (jobs) => {
        if (calls.flat().length <= 3) await hold.promise;
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 3, maxWaitMs: 20 }, prefetch: 3 },
    );
    await admin().pause('batch');
    const ids = await addAll(Array.from({ length: 6 }, (_, n) => ({ n })));
    await admin().resume('batch');
    // Three running in the batch, three claimed ahead (leased, counted apart: `claimed`) waiting for its slots.
    await waitFor(async () => {
      const counts = await admin().getCounts('batch');
      return counts.running === 3 && counts.claimed === 3;
    }, 'three jobs running, three claimed ahead');
    // Three slots, so three jobs called (in one batch when one claim brought them), the other three held back.
    expect(calls.flat()).toHaveLength(3);
    hold.open();
    expect((await finished(ids)).map((job) => job.result)).toEqual([0, 1, 2, 3, 4, 5]);
    // The prefetched three start as the first batch's slots free: one batch of three, or smaller ones if their slots
    // free in different turns; never more than size, never one job twice.
    expect(calls.slice(1).every((call) => call.length <= 3)).toBe(true);
    expect(calls.flat().sort()).toEqual([...ids].sort());
  });

  it('gives each job of a batch its own progress and log', async () => {
    await start(
      async (jobs) => {
        for (const job of jobs) {
          await job.updateProgress(job.data.n);
          await job.log(`job ${job.data.n} ran in a batch of ${jobs.length}`);
        }
      },
      { batch: { size: 2 } },
    );
    await admin().pause('batch');
    const ids = await addAll([{ n: 1 }, { n: 2 }]);
    await admin().resume('batch');
    const jobs = await finished(ids);
    expect(jobs.map((job) => job.progress)).toEqual([1, 2]);
    expect(await admin().getJobLogs(ids[0])).toEqual(['job 1 ran in a batch of 2']);
    expect(await admin().getJobLogs(ids[1])).toEqual(['job 2 ran in a batch of 2']);
  });

  it('hands back the jobs of a batch not yet called at a clean shutdown, their attempt uncounted', async () => {
    // The partial batch would be called 2 s in, well within the shutdown's grace: only the hand-back keeps it uncalled.
    await start(async () => 'never', { batch: { size: 10, maxWaitMs: 2_000 } }, 20_000);
    const ids = await addAll([{ n: 1 }, { n: 2 }]);
    await waitFor(async () => (await admin().getCounts('batch')).running === 2, 'both jobs claimed');
    const reader = await current.startApp({ module: { processing: false } });
    await current.close(app);
    const jobs = await Promise.all(ids.map((id) => reader.get(QueueAdmin).getJob(id)));
    expect(calls).toEqual([]);
    expect(jobs.map((job) => [job?.status, job?.attempts])).toEqual([
      ['pending', 0],
      ['pending', 0],
    ]);
  });

  it('at a clean shutdown mid-batch, a batch already called finishes within shutdownTimeout, a partial one goes back', async () => {
    const hold = gate();
    await start(
      async (jobs) => {
        await hold.promise;
        return jobs.map((job) => job.data.n);
      },
      { batch: { size: 2, maxWaitMs: 2_000 }, concurrency: 4 },
      20_000,
    );
    await admin().pause('batch');
    const ids = await addAll([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await admin().resume('batch');
    await waitFor(async () => calls.length === 1 && (await admin().getCounts('batch')).running === 3, 'a batch called, one job waiting');
    const reader = await current.startApp({ module: { processing: false } });
    const closing = current.close(app);
    // The job of the partial batch is back before the called batch ends.
    const [waiting] = ids.filter((id) => !calls[0].includes(id));
    await waitFor(async () => (await reader.get(QueueAdmin).getJob(waiting))?.status === 'pending', 'the partial batch handed back');
    hold.open();
    await closing;
    const jobs = await Promise.all(ids.map((id) => reader.get(QueueAdmin).getJob(id)));
    for (const job of jobs) {
      if (calls[0].includes(job!.id)) expect(job).toMatchObject({ status: 'completed', result: (job!.data as Item).n, attempts: 1 });
      else expect(job).toMatchObject({ status: 'pending', attempts: 0 });
    }
    expect(calls).toHaveLength(1);
  });

  it.each([
    [{ batch: null }, 'batch must be an object'],
    [{ batch: { size: 0 } }, 'size must be an integer from 1 to 10000'],
    [{ batch: { size: 10_001 } }, 'size must be an integer from 1 to 10000'],
    [{ batch: { size: 2.5 } }, 'size must be an integer'],
    [{ batch: { size: 5, maxWaitMs: -1 } }, 'maxWaitMs must be a number of ms'],
    [{ batch: { size: 5, maxWaitMs: Infinity } }, 'maxWaitMs must be a number of ms'],
    [{ batch: { size: 5, wait: 3 } }, 'unknown option "wait"'],
    [{ batch: { size: 5 }, concurrency: 4 }, 'concurrency (4) is below batch.size (5)'],
  ])('refuses %j at boot with InvalidProcessorError', async (options, message) => {
    const Bad = defineBatchProcessor<Item>('batch', async () => undefined, options as unknown as ProcessorOptions);
    const error = await errorOf(() => current.startApp({ providers: [Bad] }));
    expect(error).toBeInstanceOf(InvalidProcessorError);
    expect(String((error as Error).message)).toContain(message);
  });
});
