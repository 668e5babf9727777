import { setTimeout as sleep } from 'node:timers/promises';
import {
  InvalidModuleOptionsError,
  InvalidProcessorError,
  Job,
  QueueAdmin,
  QueueProducer,
  RateLimitError,
  SqliteQueueModule,
} from '../lib';
import { CountingConnection, countingConnection } from './support/counting-data-source';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { CLAIM_TO_START_MS, FIRST_START_SLACK_MS } from './support/test-timings';
import { deferred, waitFor } from './support/wait-for';

/** Start times (the database's started_at: a few ms after each claim, see CLAIM_TO_START_MS) of a queue's completed jobs, ascending. */
async function startTimes(admin: QueueAdmin, queue: string): Promise<number[]> {
  const jobs = await admin.getJobs(queue, { status: 'completed', limit: 1000 });
  return jobs.map((job) => job.startedAt!.getTime()).sort((a, b) => a - b);
}

/** Most starts in any interval of `duration` ms. */
function busiestWindow(starts: number[], duration: number): number {
  let most = 0;
  for (let i = 0, j = 0; i < starts.length; i++) {
    while (starts[i] - starts[j] >= duration) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describeEachBackend('queue limits: rate limiter, RateLimitError, global concurrency', (backend) => {
  let connection: CountingConnection | undefined;
  const current = perTestApp(backend, MIGRATED);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('does not claim for a queue whose window is used up, however often jobs are added, and claims again at its end', async () => {
    const duration = 3000;
    connection = countingConnection(current.db);
    const Limited = defineProcessor('limited', async () => undefined, { concurrency: 10, limiter: { max: 2, duration } });
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 5000 })],
      providers: [Limited],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const opened = Date.now();
    await producer.addBulk('limited', [{ data: { n: 0 } }, { data: { n: 1 } }, { data: { n: 2 } }]);
    await waitFor(async () => (await admin.getCounts('limited')).completed === 2, 'the window used up');
    // The round that came back short reads the window's end.
    const readsLimits = () => connection!.log.statements.some((statement) => statement.sql.includes(' AS until'));
    await waitFor(readsLimits, 'the poller read the window end');
    // Every add wakes the poller; a poller that claimed for the closed queue would run one claim per add. Counted
    // from the 11th add on: the log shows the read when it is sent, and its answer may take a moment on a busy machine.
    let claimsBefore = connection.log.claims;
    for (let n = 3; n < 33; n++) {
      if (n === 13) claimsBefore = connection.log.claims;
      await producer.add('limited', { n });
      await sleep(5);
    }
    expect(Date.now() - opened).toBeLessThan(duration);
    expect(connection.log.claims - claimsBefore).toBeLessThanOrEqual(2);
    // The next window opens: the poller wakes for it (the 5 s poll has not come round).
    await waitFor(async () => (await admin.getCounts('limited')).completed === 4, 'two more jobs in the next window', 5000);
  });

  it('a limiter starts at most max jobs per window, wakes at the window end, and never holds up another queue', async () => {
    const max = 5;
    const duration = 500;
    const Limited = defineProcessor('limited', async () => undefined, { concurrency: 20, limiter: { max, duration } });
    const Free = defineProcessor('free', async () => undefined, { concurrency: 10 });
    const app = await current.startApp({ module: { pollInterval: 10_000 }, providers: [Limited, Free] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    // The limited queue's first window starts at its first claim, after this.
    const limitedAddedAt = Date.now();
    await producer.addBulk(
      'limited',
      Array.from({ length: 20 }, (_, n) => ({ data: { n } })),
    );
    await producer.addBulk(
      'free',
      Array.from({ length: 50 }, (_, n) => ({ data: { n } })),
    );
    await waitFor(async () => (await admin.getCounts('free')).completed === 50, 'the free queue done', 8000);
    // Meanwhile the limited queue ran at most max per window begun so far.
    const windowsBegun = Math.floor((Date.now() - limitedAddedAt) / duration) + 1;
    expect((await admin.getCounts('limited')).completed).toBeLessThanOrEqual(windowsBegun * max);
    // 20 jobs take four windows; with a 10 s poll, finishing in well under that shows the poller woke at each window end.
    await waitFor(async () => (await admin.getCounts('limited')).completed === 20, 'the limited queue done', 8000);
    const starts = await startTimes(admin, 'limited');
    expect(busiestWindow(starts, duration - CLAIM_TO_START_MS)).toBeLessThanOrEqual(2 * max);
    // Four windows: the last start is at least three windows after the first claim, which the first start trails.
    expect(starts[starts.length - 1] - starts[0]).toBeGreaterThanOrEqual(3 * duration - FIRST_START_SLACK_MS);
    // The unlimited queue is not held up by the limited one's windows: its five claim rounds all start before the
    // limited queue's fourth window. A poller that waited for window ends would start the fifth round at the fifth.
    const freeStarts = await startTimes(admin, 'free');
    expect(freeStarts[freeStarts.length - 1]).toBeLessThan(starts[starts.length - 1]);
  });

  it('module queueLimits apply to a processor that declares none', async () => {
    const Limited = defineProcessor('limited', async () => undefined, { concurrency: 10 });
    const app = await current.startApp({
      module: { pollInterval: 10_000, queueLimits: { limited: { limiter: { max: 3, duration: 300 } } } },
      providers: [Limited],
    });
    const admin = app.get(QueueAdmin);
    await app.get(QueueProducer).addBulk(
      'limited',
      Array.from({ length: 9 }, (_, n) => ({ data: { n } })),
    );
    // Three windows of 300 ms; with a 10 s poll, done well within 8 s shows the poller woke at each window end.
    await waitFor(async () => (await admin.getCounts('limited')).completed === 9, 'nine jobs done', 8000);
    const starts = await startTimes(admin, 'limited');
    expect(starts[8] - starts[0]).toBeGreaterThanOrEqual(2 * 300 - FIRST_START_SLACK_MS);
  });

  it('RateLimitError re-queues the job without spending an attempt and pauses the queue, not the others', async () => {
    const delay = 600;
    const runs: { n: number; at: number }[] = [];
    let thrownAt = 0;
    const Remote = defineProcessor<{ n: number }>(
      'remote',
      async (job: Job<{ n: number }>) => {
        runs.push({ n: job.data.n, at: Date.now() });
        if (job.data.n === 0 && thrownAt === 0) {
          thrownAt = Date.now();
          throw new RateLimitError(delay);
        }
      },
      { concurrency: 1 },
    );
    const otherDone = deferred<number>();
    const Other = defineProcessor('other', async () => otherDone.resolve(Date.now()));
    const app = await current.startApp({ module: { pollInterval: 5000 }, providers: [Remote, Other] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const first = await producer.add('remote', { n: 0 }, { maxAttempts: 1, priority: 10 });
    await producer.add('remote', { n: 1 });
    await waitFor(() => thrownAt > 0, 'the handler threw RateLimitError');
    await producer.add('other', {});
    // Another queue runs during the pause.
    expect((await otherDone.promise) - thrownAt).toBeLessThan(delay);
    await waitFor(async () => (await admin.getCounts('remote')).completed === 2, 'both remote jobs done', 5000);
    // maxAttempts 1 and still completed: the rate-limited run did not count.
    const job = await admin.getJob(first.id);
    expect(job).toMatchObject({ status: 'completed', attempts: 1 });
    // Nothing of the queue started during the pause, and the poller woke at its end despite the 5 s poll.
    const afterThrow = runs.slice(1);
    expect(afterThrow).toHaveLength(2);
    for (const run of afterThrow) expect(run.at).toBeGreaterThanOrEqual(thrownAt + delay - 5);
    expect(Math.min(...afterThrow.map((run) => run.at)) - thrownAt).toBeLessThan(delay + 1000);
  });

  it('globalConcurrency caps running jobs across two apps on one database', async () => {
    let running = 0;
    let most = 0;
    const handle = async () => {
      running++;
      most = Math.max(most, running);
      await sleep(30);
      running--;
    };
    const spec = () => ({
      module: { pollInterval: 100 },
      providers: [defineProcessor('capped', handle, { concurrency: 5, globalConcurrency: 3 })],
    });
    const one = await current.startApp(spec());
    await current.startApp(spec());
    const admin = one.get(QueueAdmin);
    await one.get(QueueProducer).addBulk(
      'capped',
      Array.from({ length: 40 }, (_, n) => ({ data: { n } })),
    );
    await waitFor(async () => (await admin.getCounts('capped')).completed === 40, '40 capped jobs done', 20_000);
    expect(most).toBe(3);
  });

  it('refuses bad limits at app.init() with a typed error naming the option', async () => {
    const bad: [object, string][] = [
      [{ limiter: { max: 0, duration: 1000 } }, 'limiter.max must be an integer from 1'],
      [{ limiter: { max: 5, duration: 1.5 } }, 'limiter.duration must be an integer number of ms'],
      [{ limiter: { max: 5, duration: 1000, per: 'x' } }, 'limiter has an unknown option "per"'],
      [{ limiter: 100 }, 'limiter must be { max, duration }'],
      [{ globalConcurrency: 0 }, 'globalConcurrency must be an integer from 1'],
    ];
    for (const [options, message] of bad) {
      const app = await current.compileApp({ providers: [defineProcessor('bad', async () => undefined, options)] });
      const init = app.init();
      await expect(init).rejects.toBeInstanceOf(InvalidProcessorError);
      await expect(init).rejects.toThrow(message);
    }
    const app = await current.compileApp({ module: { queueLimits: { mail: { limiter: { max: 1 } } } } as never });
    const init = app.init();
    await expect(init).rejects.toBeInstanceOf(InvalidModuleOptionsError);
    await expect(init).rejects.toThrow('queueLimits.mail');
  });
});
