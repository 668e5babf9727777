/**
 * `QueueAdmin.getQueueLimits`: the rate limiters a queue's processors declared (read from the database, so a process
 * without the processor sees them too), this application's concurrency bounds, and until when a used-up window keeps
 * the queue from being claimed.
 */
import { InvalidQueueNameError, QueueAdmin, QueueProducer, RateLimitError } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

describeEachBackend('queue limits (QueueAdmin.getQueueLimits)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('gives the declared limiters, the concurrency bounds and when a used-up window opens; nulls for a queue without', async () => {
    const Limited = defineProcessor('ql-limited', async () => undefined, {
      concurrency: 3,
      limiter: { max: 2, duration: 60_000 },
      groupLimiter: { max: 1, duration: 30_000 },
      groupConcurrency: 1,
      globalConcurrency: 4,
    });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Limited] });
    const admin = app.get(QueueAdmin);
    expect(await admin.getQueueLimits('ql-limited')).toEqual({
      concurrency: 3,
      limiter: { max: 2, duration: 60_000 },
      groupLimiter: { max: 1, duration: 30_000 },
      globalConcurrency: 4,
      groupConcurrency: 1,
      limitedUntil: null,
    });
    // Two jobs use up the window of two: the queue is limited until the window's end.
    const before = Date.now();
    await app.get(QueueProducer).addBulk('ql-limited', [{ data: 1 }, { data: 2 }, { data: 3 }]);
    await waitFor(async () => (await admin.getCounts('ql-limited')).completed === 2, 'two jobs ran');
    const limited = await admin.getQueueLimits('ql-limited');
    expect(limited.limitedUntil).toBeInstanceOf(Date);
    expect(limited.limitedUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(limited.limitedUntil!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(limited.limitedUntil!.getTime()).toBeGreaterThanOrEqual(before + 60_000 - 5_000);
    expect(await admin.getQueueLimits('ql-nothing')).toEqual({
      concurrency: null,
      limiter: null,
      groupLimiter: null,
      globalConcurrency: null,
      groupConcurrency: null,
      limitedUntil: null,
    });
    expect(await errorOf(() => admin.getQueueLimits('bad name!'))).toBeInstanceOf(InvalidQueueNameError);
  });

  it("a RateLimitError's pause shows until it ends, and not once it has ended", async () => {
    let paused = false;
    const Paused = defineProcessor('ql-paused', async () => {
      if (paused) return 'done';
      paused = true;
      throw new RateLimitError(400);
    });
    const app = await current.startApp({ module: { pollInterval: 20 }, providers: [Paused] });
    const admin = app.get(QueueAdmin);
    const { id } = await app.get(QueueProducer).add('ql-paused', null);
    await waitFor(async () => paused, 'the handler paused the queue');
    await waitFor(async () => (await admin.getQueueLimits('ql-paused')).limitedUntil !== null, 'the pause is shown');
    const during = (await admin.getQueueLimits('ql-paused')).limitedUntil!;
    expect(during.getTime()).toBeGreaterThan(Date.now() - 50);
    // The job runs once the pause has ended; the ended pause, still stored, is no longer shown as a time to wait for.
    await waitFor(async () => (await admin.getJob(id))?.status === 'completed', 'the job ran after the pause');
    expect(Date.now()).toBeGreaterThanOrEqual(during.getTime());
    expect((await admin.getQueueLimits('ql-paused')).limitedUntil).toBeNull();
  });

  it("reads another process's limiters from the database; the concurrency bounds are this application's", async () => {
    const Limited = defineProcessor('ql-remote', async () => undefined, { limiter: { max: 5, duration: 1_000 } });
    const worker = await current.startApp({ module: { pollInterval: 50 }, providers: [Limited] });
    const other = await current.startApp({ module: { processing: false, queueLimits: { 'ql-remote': { globalConcurrency: 7 } } } });
    expect(await other.get(QueueAdmin).getQueueLimits('ql-remote')).toEqual({
      concurrency: null,
      limiter: { max: 5, duration: 1_000 },
      groupLimiter: null,
      globalConcurrency: 7,
      groupConcurrency: null,
      limitedUntil: null,
    });
    await current.close(worker);
  });
});
