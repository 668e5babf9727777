/**
 * `QueueAdmin.explain(id)`: every reason that exists today reached on purpose, on every backend:
 * running, due, delayed, retry-backoff, paused, rate-limited, global-concurrency, group-concurrency,
 * waiting-for-children, no-processor, finished; `JobNotFoundError` for an id that names no job.
 */
import { JobNotFoundError, QueueAdmin, QueueProducer } from '../lib';
import { createQueueStorage } from '../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { errorOf } from './support/ops';
import { waitFor } from './support/wait-for';

describeEachBackend('QueueAdmin.explain', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('says why each job is where it is, with until, owner and children where they apply', async () => {
    // Handlers that hold their job until the test ends: the slot (and the global slot) stays taken.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const attemptsOf = new Map<string, number>();
    const providers = [
      defineProcessor('ex-slot', () => held, { concurrency: 1 }),
      defineProcessor('ex-global', () => held, { concurrency: 2, globalConcurrency: 1 }),
      defineProcessor('ex-group', () => held, { concurrency: 3, groupConcurrency: 1 }),
      defineProcessor('ex-rate', async () => 'ok', { limiter: { max: 1, duration: 60_000 } }),
      defineProcessor(
        'ex-retry',
        async (job) => {
          attemptsOf.set(job.id, (attemptsOf.get(job.id) ?? 0) + 1);
          throw new Error('first attempt fails');
        },
        { maxAttempts: 2, backoff: { type: 'fixed', delay: 60_000 } },
      ),
      defineProcessor('ex-plain', async () => 'done'),
      defineProcessor('ex-later', async () => 'done'),
    ];
    const app = await current.startApp({ module: { pollInterval: 50 }, providers });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    try {
      const running = await producer.add('ex-slot', { n: 1 });
      await waitFor(async () => (await admin.getJob(running.id))?.status === 'running', 'first job running');
      const due = await producer.add('ex-slot', { n: 2 });
      const delayed = await producer.add('ex-later', {}, { delay: 60_000 });
      const globalHolder = await producer.add('ex-global', { n: 1 });
      await waitFor(async () => (await admin.getJob(globalHolder.id))?.status === 'running', 'global holder running');
      const globalWaiting = await producer.add('ex-global', { n: 2 });
      const groupHolder = await producer.add('ex-group', { n: 1 }, { group: 'tenant-a' });
      await waitFor(async () => (await admin.getJob(groupHolder.id))?.status === 'running', 'group holder running');
      const groupWaiting = await producer.add('ex-group', { n: 2 }, { group: 'tenant-a' });
      // Another group of the same queue is not held back: it runs in a free slot beside tenant-a's job.
      const otherGroup = await producer.add('ex-group', { n: 3 }, { group: 'tenant-b' });
      await waitFor(async () => (await admin.getJob(otherGroup.id))?.status === 'running', 'other group running');
      const rateFirst = await producer.add('ex-rate', { n: 1 });
      await admin.waitUntilFinished(rateFirst.id, { timeout: 10_000 });
      const rateWaiting = await producer.add('ex-rate', { n: 2 });
      const retrying = await producer.add('ex-retry', {});
      await waitFor(async () => (await admin.getJob(retrying.id))?.attempts === 1 && attemptsOf.get(retrying.id) === 1, 'first attempt');
      await waitFor(async () => (await admin.getJob(retrying.id))?.status === 'pending', 'retry scheduled');
      const orphan = await producer.add('ex-nobody', {});
      await admin.pause('ex-plain');
      const paused = await producer.add('ex-plain', { n: 'paused' });
      const parent = await producer.addFlow({ queue: 'ex-plain', data: {}, children: [{ queue: 'ex-plain', data: { child: 1 } }] });
      const finished = rateFirst;

      const now = Date.now();
      const running1 = await admin.explain(running.id);
      expect(running1).toMatchObject({ status: 'running', reason: 'running' });
      expect(typeof running1.owner).toBe('string');
      expect(running1.owner!.length).toBeGreaterThan(0);
      expect(running1.until!.getTime()).toBeGreaterThan(now);
      expect(running1.detail).toContain(running1.owner!);

      expect(await admin.explain(due.id)).toMatchObject({ status: 'pending', reason: 'due' });
      const delayed1 = await admin.explain(delayed.id);
      expect(delayed1).toMatchObject({ status: 'pending', reason: 'delayed' });
      expect(Math.abs(delayed1.until!.getTime() - delayed.runAt.getTime())).toBeLessThan(5);
      expect(await admin.explain(globalWaiting.id)).toMatchObject({ status: 'pending', reason: 'global-concurrency' });
      const group = await admin.explain(groupWaiting.id);
      expect(group).toMatchObject({ status: 'pending', reason: 'group-concurrency' });
      expect(group.detail).toContain('tenant-a');
      expect(group.detail).toContain('(1)');
      const rate = await admin.explain(rateWaiting.id);
      expect(rate).toMatchObject({ status: 'pending', reason: 'rate-limited' });
      expect(rate.until!.getTime()).toBeGreaterThan(now);
      expect(rate.until!.getTime()).toBeLessThanOrEqual(now + 60_000);
      const retry = await admin.explain(retrying.id);
      expect(retry).toMatchObject({ status: 'pending', reason: 'retry-backoff' });
      expect(retry.until!.getTime()).toBeGreaterThan(now + 50_000);
      expect(await admin.explain(orphan.id)).toMatchObject({ status: 'pending', reason: 'no-processor' });
      expect(await admin.explain(paused.id)).toMatchObject({ status: 'pending', reason: 'paused' });
      expect(await admin.explain(parent.id)).toMatchObject({ status: 'pending', reason: 'waiting-for-children', childrenLeft: 1 });
      const done = await admin.explain(finished.id);
      expect(done).toMatchObject({ status: 'completed', reason: 'finished' });
      for (const explanation of [running1, delayed1, rate, retry, done]) expect(explanation.detail.length).toBeGreaterThan(10);
    } finally {
      release();
    }
  });

  it('a failed job is finished, its error in the detail; an unknown or malformed id is JobNotFoundError', async () => {
    const Fails = defineProcessor(
      'ex-fail',
      async () => {
        throw new Error('the upstream said no');
      },
      { maxAttempts: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Fails] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const job = await producer.add('ex-fail', {});
    await admin.waitUntilFinished(job.id, { timeout: 10_000 });
    const explained = await admin.explain(job.id);
    expect(explained).toMatchObject({ status: 'failed', reason: 'finished' });
    expect(explained.detail).toContain('Error: the upstream said no');
    for (const id of ['999999999', 'nope', '', '1 OR 1=1']) expect(await errorOf(() => admin.explain(id))).toBeInstanceOf(JobNotFoundError);
  });

  it("a queue whose processors' announcement lapsed is explained as no-processor, saying when it lapsed", async () => {
    const app = await current.startApp({ module: { processing: false } });
    const job = await app.get(QueueProducer).add('ex-gone', {});
    // A process announced a processor for the queue, and stopped renewing it a minute ago (it died, or was scaled away).
    const lapsedAt = Date.now() - 60_000;
    await (await app.get(QueueRuntime).storage()).announceProcessors(['ex-gone'], lapsedAt, lapsedAt - 30_000);
    const explained = await app.get(QueueAdmin).explain(job.id);
    expect(explained).toMatchObject({ status: 'pending', reason: 'no-processor' });
    expect(explained.detail).toContain(`the last announcement lapsed at ${new Date(lapsedAt).toISOString()}`);
  });

  it('a running job whose lease expired is explained as claimed by its owner, whose lease expired: recovery will run it again', async () => {
    // No processing in this app: its lease recovery would take the job back before it is explained.
    const app = await current.startApp({ module: { processing: false } });
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add('ex-lapsed', {});
    // A worker that vanished: its own storage claims the job with a 1 ms lease, never renewed.
    const vanished = createQueueStorage(resolveModuleOptions({ ...current.db.options }));
    await vanished.initialize();
    try {
      const [claimed] = await vanished.claim([{ queue: 'ex-lapsed', limit: 1 }], 'vanished-worker', Date.now(), 1);
      expect(claimed.id).toBe(job.id);
      await waitFor(async () => ((await admin.getJob(job.id))?.leaseUntil?.getTime() ?? Infinity) < Date.now(), 'the lease lapsed');
      const explained = await admin.explain(job.id);
      expect(explained).toMatchObject({ status: 'running', reason: 'running', owner: 'vanished-worker' });
      expect(explained.until!.getTime()).toBeLessThan(Date.now());
      expect(explained.detail).toContain('vanished-worker, whose lease expired at');
      expect(explained.detail).toContain('lease recovery will run it again');
      expect(explained.detail).not.toContain('renewed while it runs');
    } finally {
      await vanished.close();
    }
  });
});
