/**
 * Another OS process holds SQLite's write lock (BEGIN IMMEDIATE, 2 s, under the 5 s busy_timeout) while the
 * app processes and producers add jobs: writers wait for the lock instead of failing, nothing escapes to the
 * host application, nothing is lost. (An unhandled rejection in this process fails the test through Jest;
 * one in the child producer would end it with a non-zero exit code.)
 */
import { LoggerService } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer } from '../lib';
import { MODULE_DEFAULTS } from '../lib/module-defaults.constants';
import { ChildApp, startChildApp, startLockHolder } from './support/child-app';
import { SHORT_BUSY_TIMEOUT } from './support/test-timings';
import { deferred, waitFor } from './support/wait-for';
import { describeEachSqlite, perTestApp, MIGRATED } from './support/backends';

const starts = new Map<string, number>();
const finishedAt = new Map<string, number>();
let gate = deferred<void>();

@Processor('locked', { concurrency: 4 })
class LockedProcessor implements QueueProcessor<{ n: number; gated?: boolean }, number> {
  async process(job: Job<{ n: number; gated?: boolean }>): Promise<number> {
    starts.set(job.id, Date.now());
    if (job.data.gated) await gate.promise;
    finishedAt.set(job.id, Date.now());
    return job.data.n;
  }
}

/** Keeps what the library logs, to show it reported no error. */
class CapturingLogger implements LoggerService {
  readonly errors: string[] = [];
  readonly warnings: string[] = [];
  log(): void {}
  debug(): void {}
  verbose(): void {}
  error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest].map(String).join(' '));
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.warnings.push([message, ...rest].map(String).join(' '));
  }
}

// SQLite only: the lock is SQLite's file lock, taken with node-sqlite3 directly.
describeEachSqlite('a second process holds the write lock', (backend) => {
  let app: TestingModule | undefined;
  let children: ChildApp[] = [];

  beforeEach(() => {
    starts.clear();
    finishedAt.clear();
    gate = deferred<void>();
  });
  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
    gate.resolve();
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend, MIGRATED);

  it('the app and the producers wait for a 2 s write lock and recover: every add resolves, every job completes', async () => {
    const holdMs = 2000;
    expect(holdMs).toBeLessThan(MODULE_DEFAULTS.busyTimeout); // the premise: the lock ends within SQLite's busy wait
    const logger = new CapturingLogger();
    app = await current.startApp({ module: { pollInterval: 100 }, providers: [LockedProcessor], logger });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    const before = await producer.addBulk(
      'locked',
      Array.from({ length: 20 }, (_, n) => ({ data: { n } })),
    );
    await waitFor(async () => (await admin.getCounts('locked')).completed === 20, 'the first 20 jobs completed');

    // Four jobs are running when the lock is taken; they finish during it, so saving their outcome must wait.
    const inFlight = await producer.addBulk(
      'locked',
      Array.from({ length: 4 }, (_, n) => ({ data: { n: 10 + n, gated: true } })),
    );
    await waitFor(() => inFlight.every((job) => starts.has(job.id)), 'four gated jobs running');

    const holder = startLockHolder(current.db.path, holdMs);
    children.push(holder);
    await holder.printed('LOCKED');
    gate.resolve();
    await waitFor(() => inFlight.every((job) => finishedAt.has(job.id)), 'the four handlers returned under the lock');

    // While the lock is held: 50 single adds, one addBulk of 50, and another OS process adding 100.
    const resolvedAt: number[] = [];
    const track = <T>(promise: Promise<T>) => promise.then((value) => (resolvedAt.push(Date.now()), value));
    const singles = Promise.all(Array.from({ length: 50 }, (_, i) => track(producer.add('locked', { n: 100 + i }))));
    const bulk = track(
      producer.addBulk(
        'locked',
        Array.from({ length: 50 }, (_, i) => ({ data: { n: 200 + i } })),
      ),
    );
    const childProducer = startChildApp({
      connection: current.db.options,
      produce: { queue: 'locked', count: 100, bulk: 25 },
      exitAfterProduce: true,
    });
    children.push(childProducer);

    expect(await holder.exited).toBe(0);
    const releasing = Number(/RELEASING (\d+)/.exec(holder.stdout())![1]);
    const added = [...(await singles), ...(await bulk)];
    expect(added).toHaveLength(100);
    expect(new Set(added.map((job) => job.id)).size).toBe(100);
    // They really waited for the lock: none could commit before the holder's COMMIT.
    expect(resolvedAt).toHaveLength(51);
    for (const at of resolvedAt) expect(at).toBeGreaterThanOrEqual(releasing);
    expect(await childProducer.exited).toBe(0);
    expect(childProducer.stderr()).not.toMatch(/error/i);

    await waitFor(async () => (await admin.getCounts('locked')).completed === 224, 'all 224 jobs completed');
    expect(await admin.getCounts('locked')).toMatchObject({ pending: 0, running: 0, completed: 224, failed: 0 });
    for (const job of inFlight) {
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1, result: job.data.n });
      expect((await admin.getJob(job.id))!.finishedAt!.getTime()).toBeGreaterThanOrEqual(finishedAt.get(job.id)!);
    }
    for (const job of added) {
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(starts.get(job.id)).toBeGreaterThanOrEqual(releasing);
    }
    expect(before.every((job) => starts.has(job.id))).toBe(true);
    // Waiting on the lock was not an error anywhere.
    expect(logger.errors).toEqual([]);
  });

  it('a lock held past busy_timeout makes some statements fail with SQLITE_BUSY; the app retries them and loses nothing', async () => {
    // A short busy timeout: the lock outlasts it by as much as the default one would, in a third of the time.
    const holdMs = SHORT_BUSY_TIMEOUT + 1500;
    const logger = new CapturingLogger();
    app = await current.startApp({ module: { pollInterval: 100, busyTimeout: SHORT_BUSY_TIMEOUT }, providers: [LockedProcessor], logger });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    const inFlight = await producer.addBulk(
      'locked',
      Array.from({ length: 4 }, (_, n) => ({ data: { n, gated: true } })),
    );
    await waitFor(() => inFlight.every((job) => starts.has(job.id)), 'four gated jobs running');
    const holder = startLockHolder(current.db.path, holdMs);
    children.push(holder);
    await holder.printed('LOCKED');
    gate.resolve(); // their outcomes must now wait for the lock, longer than SQLite will wait at once
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => producer.add('locked', { n: 100 + i })));
    expect(await holder.exited).toBe(0);

    // Each add settled (none hangs): resolved, or rejected with SQLite's busy error for the caller to handle.
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(String(outcome.reason)).toMatch(/SQLITE_BUSY|database is locked/);
    }
    const added = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const after = await producer.addBulk(
      'locked',
      Array.from({ length: 10 }, (_, i) => ({ data: { n: 200 + i } })),
    );
    const all = [...inFlight, ...added, ...after];
    await waitFor(async () => (await admin.getCounts('locked')).completed === all.length, 'every job written completed', 30_000);
    // Every add that resolved wrote its own row (no phantom ids, no row of another add), and it ran once.
    expect(new Set(all.map((job) => job.id)).size).toBe(all.length);
    for (const job of all) expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1, data: job.data });
    expect(await admin.getCounts('locked')).toMatchObject({ pending: 0, running: 0, failed: 0 });
    // The premise held (something hit SQLITE_BUSY: an add, or an internal statement that was logged and
    // retried), and nothing else went wrong.
    expect(outcomes.filter((outcome) => outcome.status === 'rejected').length + logger.errors.length).toBeGreaterThan(0);
    for (const error of logger.errors) expect(error).toMatch(/SQLITE_BUSY|database is locked/);
  });
});
