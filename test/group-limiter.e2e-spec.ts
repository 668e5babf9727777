/**
 * Rate limits per group (`groupLimiter`): a group's starts bounded per window across apps sharing one database, other
 * groups and jobs without a group going on meanwhile, the combination with `groupConcurrency`, a GroupRateLimitError's
 * pause of one group (and of the queue for a job without one), and bad options refused at boot with a typed error.
 */
import {
  GroupRateLimitError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  Job,
  QueueAdmin,
  QueueProducer,
  RateLimitError,
} from '../lib';
import { EXIT_CODES } from '../lib/cli/exit-codes';
import { defineProcessor } from './fixtures/define-processor';
import { expectExit } from './support/cli-expect';
import { runCliInProcess } from './support/cli-in-process';
import { createQueueStorage } from '../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { newJob } from './support/storage-contract';
import { waitFor } from './support/wait-for';

/** Start times (the database's started_at: at or after each claim, later on a loaded machine) of a group's completed jobs, ascending. */
async function startsOf(admin: QueueAdmin, queue: string, group: string): Promise<number[]> {
  const jobs = await admin.getJobs(queue, { status: 'completed', group, limit: 1000 });
  return jobs.map((job) => job.startedAt!.getTime()).sort((a, b) => a - b);
}

/** Jobs of `group` in `data` form, `count` of them. */
function jobsOf(group: string | undefined, count: number) {
  return Array.from({ length: count }, (_, n) => ({ data: { group: group ?? null, n }, options: group === undefined ? {} : { group } }));
}

describeEachBackend('group limiter', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('starts at most max jobs of one group per window across two apps on one database, each group in its own window', async () => {
    const max = 3;
    const duration = 1000;
    const spec = () => ({
      module: { pollInterval: 50 },
      providers: [defineProcessor('tenants', async () => undefined, { concurrency: 10, groupLimiter: { max, duration } })],
    });
    const one = await current.startApp(spec());
    await current.startApp(spec());
    const admin = one.get(QueueAdmin);
    // The apps run in this process, on this clock. A group's first window opens at its first claim, which is after
    // this: a job claimed in a later window is claimed, so started, at least one window after it. Anchored here, not
    // at the first start, the bounds hold however late a loaded machine starts a claimed job.
    const addedAt = Date.now();
    await one.get(QueueProducer).addBulk('tenants', [...jobsOf('a', 7), ...jobsOf('b', 7)]);
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 14, 'both groups done', 10_000);
    for (const group of ['a', 'b']) {
      const starts = await startsOf(admin, 'tenants', group);
      // At most max start within a window of the add, whichever app claimed them, and the first window took its max
      // (its third start came before a second window could open: that takes a claim-to-start lag of a whole window).
      expect(starts.filter((at) => at < addedAt + duration)).toHaveLength(max);
      // Seven jobs need three windows.
      expect(starts[6]).toBeGreaterThanOrEqual(addedAt + 2 * duration);
    }
  });

  it('lets other groups and jobs without a group go on while groups are at their limit (one slot: no head-of-line blocking)', async () => {
    const Worker = defineProcessor('tenants', async () => undefined, { concurrency: 1, groupLimiter: { max: 2, duration: 60_000 } });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await producer.addBulk('tenants', [...jobsOf('d1', 6), ...jobsOf('d2', 6)]);
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 4, 'groups d1 and d2 at their limit');
    // Added after their backlog: in plain order all behind it, and in the walk of groups the two limited groups come
    // between the groups b and c, each claim's walk passing over them.
    await producer.addBulk('tenants', [...jobsOf('b', 3), ...jobsOf('c', 3), ...jobsOf(undefined, 3)]);
    await waitFor(
      async () => (await admin.getCounts('tenants')).completed === 4 + 2 + 2 + 3,
      'b and c to their limit, the others all',
      5000,
    );
    for (const group of ['b', 'c']) expect((await admin.getCounts('tenants', { group })).completed).toBe(2);
    for (const group of ['d1', 'd2']) expect((await admin.getCounts('tenants', { group })).pending).toBe(4);
  });

  it('wakes when a held-back group window ends, without waiting for the fallback poll', async () => {
    const duration = 400;
    const Worker = defineProcessor('tenants', async () => undefined, { concurrency: 5, groupLimiter: { max: 2, duration } });
    const app = await current.startApp({ module: { pollInterval: 10_000 }, providers: [Worker] });
    const admin = app.get(QueueAdmin);
    // Before the add: the first window opens at a claim after it (see the first test).
    const addedAt = Date.now();
    await app.get(QueueProducer).addBulk('tenants', jobsOf('a', 6));
    // Three windows; with a 10 s poll, done well within 8 s shows the poller woke at each window's end.
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 6, 'six jobs done', 8000);
    const starts = await startsOf(admin, 'tenants', 'a');
    // The fifth job is the third window's first.
    expect(starts[4]).toBeGreaterThanOrEqual(addedAt + 2 * duration);
  });

  it('combines with groupConcurrency: one at a time per group, and no more than max per window', async () => {
    let running = 0;
    let most = 0;
    const Worker = defineProcessor(
      'tenants',
      async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 20));
        running--;
      },
      { concurrency: 5, groupConcurrency: 1, groupLimiter: { max: 3, duration: 60_000 } },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const admin = app.get(QueueAdmin);
    await app.get(QueueProducer).addBulk('tenants', jobsOf('a', 6));
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 3, 'three done');
    // Several more claim rounds: the window holds the group at three.
    await app.get(QueueProducer).add('tenants', { other: true }, { group: 'b' });
    await waitFor(async () => (await admin.getCounts('tenants', { group: 'b' })).completed === 1, 'group b ran');
    expect((await admin.getCounts('tenants', { group: 'a' })).completed).toBe(3);
    expect(most).toBe(1);
  });

  it('combines with limiter and globalConcurrency: every bound holds at once, across two apps', async () => {
    let running = 0;
    let most = 0;
    const spec = () => ({
      module: { pollInterval: 50 },
      providers: [
        defineProcessor(
          'tenants',
          async () => {
            most = Math.max(most, ++running);
            await new Promise((resolve) => setTimeout(resolve, 30));
            running--;
          },
          { concurrency: 5, limiter: { max: 5, duration: 60_000 }, globalConcurrency: 2, groupLimiter: { max: 2, duration: 60_000 } },
        ),
      ],
    });
    const one = await current.startApp(spec());
    await current.startApp(spec());
    const admin = one.get(QueueAdmin);
    await one.get(QueueProducer).addBulk('tenants', [...jobsOf('a', 4), ...jobsOf('b', 4), ...jobsOf('c', 4)]);
    // The queue's window (5) ends it: two groups at their own limit (2 each) and one more start of the third.
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 5, 'five done', 5000);
    // A job of a fresh group waits for the queue's window, not its group's.
    const more = await one.get(QueueProducer).add('tenants', { more: true }, { group: 'd' });
    await waitFor(async () => (await admin.explain(more.id)).reason === 'rate-limited', 'd held by the queue window');
    expect((await admin.getCounts('tenants')).completed).toBe(5);
    for (const group of ['a', 'b', 'c']) expect((await admin.getCounts('tenants', { group })).completed).toBeLessThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(2);
  });

  it('applies the module queueLimits groupLimiter to a processor that declares none', async () => {
    const Worker = defineProcessor('tenants', async (job: Job) => job.group, { concurrency: 5 });
    const app = await current.startApp({
      module: { pollInterval: 50, queueLimits: { tenants: { groupLimiter: { max: 1, duration: 60_000 } } } },
      providers: [Worker],
    });
    const admin = app.get(QueueAdmin);
    await app.get(QueueProducer).addBulk('tenants', [...jobsOf('a', 3), ...jobsOf('b', 3)]);
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 2, 'one of each group');
    await app.get(QueueProducer).add('tenants', { late: true }, { group: 'c' });
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 3, 'group c ran');
    expect((await admin.getCounts('tenants')).pending).toBe(4);
  });

  it('GroupRateLimitError pauses its group in every process, uncharged, while the other groups go on', async () => {
    const delay = 800;
    const runs: { group: string; n: number; at: number }[] = [];
    let thrownAt = 0;
    const spec = () => ({
      module: { pollInterval: 50 },
      providers: [
        defineProcessor<{ n: number }>(
          'tenants',
          async (job: Job<{ n: number }>) => {
            runs.push({ group: job.group!, n: job.data.n, at: Date.now() });
            if (job.group === 'a' && job.data.n === 0 && thrownAt === 0) {
              thrownAt = Date.now();
              throw new GroupRateLimitError(delay);
            }
            await new Promise((resolve) => setTimeout(resolve, 20));
          },
          { concurrency: 2, groupConcurrency: 1 },
        ),
      ],
    });
    const one = await current.startApp(spec());
    await current.startApp(spec());
    const producer = one.get(QueueProducer);
    const admin = one.get(QueueAdmin);
    const first = await producer.add('tenants', { n: 0 }, { group: 'a', maxAttempts: 1, priority: 10 });
    await producer.addBulk('tenants', [
      ...[1, 2].map((n) => ({ data: { n }, options: { group: 'a' } })),
      ...[0, 1, 2, 3].map((n) => ({ data: { n }, options: { group: 'b' } })),
    ]);
    await waitFor(() => thrownAt > 0, 'the handler threw GroupRateLimitError');
    // Group b runs during a's pause, in both apps' claims.
    await waitFor(async () => (await admin.getCounts('tenants', { group: 'b' })).completed === 4, 'group b done', 5000);
    expect(Date.now() - thrownAt).toBeLessThan(delay);
    await waitFor(async () => (await admin.getCounts('tenants')).completed === 7, 'all done', 5000);
    // maxAttempts 1 and completed: the rate-limited run was not charged.
    expect(await admin.getJob(first.id)).toMatchObject({ status: 'completed', attempts: 1 });
    // No job of group a started in either app before the pause ended.
    for (const run of runs.filter((r) => r.group === 'a').slice(1)) expect(run.at).toBeGreaterThanOrEqual(thrownAt + delay - 5);
  });

  it('a job without a group runs while two groups are paused by GroupRateLimitError and fill the head of the queue', async () => {
    // No groupConcurrency nor groupLimiter: the pauses alone hold the groups back. With two slots, the head of the queue
    // in plain order is two jobs of the paused groups: the job without a group behind them must still be reached.
    const pausedAt = new Map<string, number>();
    const starts: { group: string | null; at: number }[] = [];
    const Worker = defineProcessor<{ n: number }>(
      'pauses',
      async (job: Job<{ n: number }>) => {
        starts.push({ group: job.group, at: Date.now() });
        if (job.group !== null && job.data.n === 0) {
          pausedAt.set(job.group, Date.now());
          throw new GroupRateLimitError(60_000);
        }
      },
      { concurrency: 2 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await producer.addBulk('pauses', [...['g1', 'g2'].flatMap((group) => [0, 1, 2].map((n) => ({ data: { n }, options: { group } })))]);
    await waitFor(() => pausedAt.size === 2, 'both groups paused');
    const loose = await producer.add('pauses', { n: 9 });
    await waitFor(async () => (await admin.getJob(loose.id))?.status === 'completed', 'the job without a group ran', 5000);
    // The groups are still paused: each keeps its handed-back job and at least one more pending (a job claimed with the
    // paused one, before the pause was written, may have run: documented).
    for (const group of ['g1', 'g2']) expect((await admin.getCounts('pauses', { group })).pending).toBeGreaterThanOrEqual(2);
    expect(starts.filter((start) => start.group === null)).toHaveLength(1);
  });

  it('GroupRateLimitError from a job without a group pauses the whole queue, as RateLimitError does', async () => {
    expect(new GroupRateLimitError(5)).toBeInstanceOf(RateLimitError);
    const delay = 500;
    const runs: number[] = [];
    let thrownAt = 0;
    const Worker = defineProcessor(
      'plain',
      async () => {
        runs.push(Date.now());
        if (thrownAt === 0) {
          thrownAt = Date.now();
          throw new GroupRateLimitError(delay);
        }
      },
      { concurrency: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const admin = app.get(QueueAdmin);
    const [first] = await app.get(QueueProducer).addBulk('plain', [
      { data: 0, options: { maxAttempts: 1 } },
      { data: 1, options: { group: 'g' } },
    ]);
    await waitFor(async () => (await admin.getCounts('plain')).completed === 2, 'both done', 5000);
    expect(await admin.getJob(first.id)).toMatchObject({ status: 'completed', attempts: 1 });
    for (const at of runs.slice(1)) expect(at).toBeGreaterThanOrEqual(thrownAt + delay - 5);
  });

  it('explain says a job waits because its group is rate limited, until when, in any process; other groups are not held', async () => {
    const Worker = defineProcessor('tenants', async () => undefined, { concurrency: 2, groupLimiter: { max: 1, duration: 60_000 } });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const before = Date.now();
    const [first, second] = await producer.addBulk('tenants', jobsOf('a', 2));
    await admin.waitUntilFinished(first.id, { timeout: 5000 });
    const held = await admin.explain(second.id);
    expect(held).toMatchObject({ status: 'pending', reason: 'group-rate-limited' });
    expect(held.until!.getTime()).toBeGreaterThan(Date.now());
    expect(held.until!.getTime()).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(held.until!.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    expect(held.detail).toContain('"a"');
    // A process that runs no processor reads the stored limiter: the same answer.
    const reader = await current.startApp({ module: { processing: false } });
    expect(await reader.get(QueueAdmin).explain(second.id)).toMatchObject({ reason: 'group-rate-limited', until: held.until });
    // A job of another group is not held back by a's window.
    const other = await producer.add('tenants', {}, { group: 'b' });
    expect((await admin.waitUntilFinished(other.id, { timeout: 5000 })).status).toBe('completed');
  });

  it('the status command names when the first held-back group opens; job explains it', async () => {
    const Worker = defineProcessor('tenants', async () => undefined, { groupLimiter: { max: 1, duration: 60_000 } });
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const [first, second] = await app.get(QueueProducer).addBulk('tenants', jobsOf('a', 2));
    await app.get(QueueAdmin).waitUntilFinished(first.id, { timeout: 5000 });
    const db = current.db;
    const args = db.options.postgres
      ? ['--postgres', db.options.postgres.url!, '--schema', db.options.postgres.schema!]
      : ['--database', db.path, '--driver', db.options.driver!];
    const status = await runCliInProcess(['status', '--json', ...args]);
    expectExit(status, EXIT_CODES.ok);
    const [queue] = (
      JSON.parse(status.stdout) as { queues: { name: string; limitedUntil: number | null; groupLimitedUntil: number | null }[] }
    ).queues;
    expect(queue).toMatchObject({ name: 'tenants', limitedUntil: null });
    expect(queue.groupLimitedUntil).toBeGreaterThan(Date.now());
    const text = await runCliInProcess(['status', ...args]);
    expect(text.stdout).toMatch(/^tenants\s.*active, a group limited until \d{4}-/m);
    const job = await runCliInProcess(['job', second.id, ...args]);
    expect(job.stdout).toMatch(/^ {2}why group-rate-limited until /m);
  });

  it('explain says a job waits for its group paused by GroupRateLimitError, until the pause ends', async () => {
    let thrown = false;
    const Worker = defineProcessor(
      'tenants',
      async () => {
        if (!thrown) {
          thrown = true;
          throw new GroupRateLimitError(30_000);
        }
      },
      { concurrency: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Worker] });
    const admin = app.get(QueueAdmin);
    const [job] = await app.get(QueueProducer).addBulk('tenants', jobsOf('a', 1));
    await waitFor(async () => thrown && (await admin.getJob(job.id))?.status === 'pending', 'handed back');
    const why = await admin.explain(job.id);
    expect(why).toMatchObject({ status: 'pending', reason: 'group-rate-limited' });
    expect(why.until!.getTime()).toBeGreaterThan(Date.now() + 20_000);
  });

  it('refuses bad group limiters at app.init() with a typed error naming the option', async () => {
    const bad: [object, string][] = [
      [{ groupLimiter: { max: 0, duration: 1000 } }, 'groupLimiter.max must be an integer from 1'],
      [{ groupLimiter: { max: 1.5, duration: 1000 } }, 'groupLimiter.max must be an integer from 1'],
      [{ groupLimiter: { max: 5, duration: 0 } }, 'groupLimiter.duration must be an integer number of ms'],
      [{ groupLimiter: { max: 5, duration: -1 } }, 'groupLimiter.duration must be an integer number of ms'],
      [{ groupLimiter: { max: 5, duration: 1000, per: 'x' } }, 'groupLimiter has an unknown option "per"'],
      [{ groupLimiter: 'fast' }, 'groupLimiter must be { max, duration }'],
      [{ groupLimiter: [5, 1000] }, 'groupLimiter must be { max, duration }'],
    ];
    for (const [options, message] of bad) {
      const app = await current.compileApp({ providers: [defineProcessor('bad', async () => undefined, options)] });
      const init = app.init();
      await expect(init).rejects.toBeInstanceOf(InvalidProcessorError);
      await expect(init).rejects.toThrow(message);
    }
    const app = await current.compileApp({ module: { queueLimits: { mail: { groupLimiter: { max: 1 } } } } as never });
    const init = app.init();
    await expect(init).rejects.toBeInstanceOf(InvalidModuleOptionsError);
    await expect(init).rejects.toThrow(/queueLimits.mail.*groupLimiter.duration/);
  });
});

describeEachBackend('group limiter under racing claims', (backend) => {
  // Several connections (pools of their own on PostgreSQL, connections of their own on SQLite) claiming at once, as
  // processes do: what the claim's lock and its read of the windows after it must keep within the bound.
  it('twenty claims racing from four storages take at most max jobs of a group in its window', async () => {
    const db = await backend.migratedDatabase();
    const storages = Array.from({ length: 4 }, () => createQueueStorage(resolveModuleOptions({ ...db.options })));
    try {
      for (const storage of storages) await storage.initialize();
      const [first] = storages;
      await first.declareLimits([{ queue: 'race', max: null, duration: null, groupMax: 3, groupDuration: 60_000 }], Date.now());
      await first.enqueue(
        'race',
        Array.from({ length: 40 }, () => newJob({ group: 'a' })),
        Date.now(),
      );
      const request = { queue: 'race', limit: 5, grouped: true, groupRateLimited: true };
      const claims = await Promise.all(
        storages.flatMap((storage, i) => Array.from({ length: 5 }, (_, k) => storage.claim([request], `w${i}-${k}`, Date.now(), 30_000))),
      );
      expect(claims.flat()).toHaveLength(3);
    } finally {
      for (const storage of storages) await storage.close();
      db.cleanup();
    }
  });
});
