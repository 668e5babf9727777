/**
 * Waiting on a job that is removed while waited on rejected with `JobNotFoundError` on SQLite but
 * `WaitTimeoutError` on PostgreSQL, and either could hang until its timeout once the wait had had its first look.
 * Now every backend rejects with `JobNotFoundError`: at once for a removal by this process, and for one by another
 * process within the waiter's `pollInterval` (PostgreSQL: at once, from the removal's notification).
 */
import { TestingModule } from '@nestjs/testing';
import { JobNotFoundError, QueueAdmin, QueueEvent, QueueEvents, QueueProducer } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { describeEachBackend, itWhen, perTestApp, MIGRATED } from './support/backends';

/** Far beyond every bound below: a wait that only ends by its timeout fails the test with WaitTimeoutError. */
const WAIT_TIMEOUT = 8_000;

/** Resolves once the watcher's first look at a job has come back: a removal after it is one the wait must notice. */
async function firstLookDone(app: TestingModule): Promise<void> {
  const storage = await app.get(QueueRuntime).storage();
  const original = storage.getJob.bind(storage);
  await new Promise<void>((resolve) => {
    jest.spyOn(storage, 'getJob').mockImplementation(async (id) => {
      const record = await original(id);
      resolve();
      return record;
    });
  });
}

async function rejection(promise: Promise<unknown>): Promise<{ error: unknown; took: number }> {
  const started = Date.now();
  try {
    await promise;
  } catch (error) {
    return { error, took: Date.now() - started };
  }
  throw new Error('the wait resolved');
}

describeEachBackend('waiting on a job that is removed', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('a job removed by this process while waited on rejects the wait with JobNotFoundError at once', async () => {
    // A long poll: only a prompt look after the removal ends the wait in time.
    const app = await current.startApp({ module: { processing: false, pollInterval: 5_000 } });
    const job = await app.get(QueueProducer).add('nobody', { n: 1 });
    const looked = firstLookDone(app);
    const wait = rejection(job.waitUntilFinished({ timeout: WAIT_TIMEOUT }));
    await looked;
    await app.get(QueueAdmin).remove(job.id);
    const { error, took } = await wait;
    expect(error).toBeInstanceOf(JobNotFoundError);
    expect((error as JobNotFoundError).jobId).toBe(job.id);
    expect(took).toBeLessThan(2_000);
  });

  it('a pending job cancelled by this process while waited on ends the wait at once, and its cancelled event goes out', async () => {
    const app = await current.startApp({ module: { processing: false, pollInterval: 5_000 } });
    const events: QueueEvent[] = [];
    app.get(QueueEvents).subscribe((event) => events.push(event));
    const job = await app.get(QueueProducer).add('nobody', { n: 1 });
    const looked = firstLookDone(app);
    const started = Date.now();
    const wait = job.waitUntilFinished({ timeout: WAIT_TIMEOUT });
    await looked;
    await app.get(QueueAdmin).cancel(job.id);
    await expect(wait).resolves.toMatchObject({ id: job.id, status: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(events.filter((event) => event.type === 'cancelled')).toEqual([
      expect.objectContaining({ type: 'cancelled', queue: 'nobody', jobId: job.id, attempt: 0 }),
    ]);
  });

  it('a job cleaned by this process while waited on rejects the wait with JobNotFoundError at once', async () => {
    const app = await current.startApp({ module: { processing: false, pollInterval: 5_000 } });
    const job = await app.get(QueueProducer).add('nobody', { n: 1 });
    const looked = firstLookDone(app);
    const wait = rejection(app.get(QueueAdmin).waitUntilFinished(job.id, { timeout: WAIT_TIMEOUT }));
    await looked;
    expect(await app.get(QueueAdmin).clean('nobody', { status: 'pending' })).toBe(1);
    const { error, took } = await wait;
    expect(error).toBeInstanceOf(JobNotFoundError);
    expect(took).toBeLessThan(2_000);
  });

  it('a job removed by another app on the database rejects the wait with JobNotFoundError, not a timeout', async () => {
    const waiter = await current.startApp({ module: { processing: false, pollInterval: 200 } });
    const other = await current.startApp({ module: { processing: false, pollInterval: 200 } });
    const job = await waiter.get(QueueProducer).add('nobody', { n: 1 });
    const looked = firstLookDone(waiter);
    const wait = rejection(job.waitUntilFinished({ timeout: WAIT_TIMEOUT }));
    await looked;
    await other.get(QueueAdmin).remove(job.id);
    const { error, took } = await wait;
    expect(error).toBeInstanceOf(JobNotFoundError);
    // Within a few of the waiter's polls (SQLite), or at once from the removal's notification (PostgreSQL).
    expect(took).toBeLessThan(3_000);
  });

  itWhen(backend.kind === 'postgres')('PostgreSQL: a removal by another app is announced: the wait ends long before its poll', async () => {
    const waiter = await current.startApp({ module: { processing: false, pollInterval: 5_000 } });
    const other = await current.startApp({ module: { processing: false, pollInterval: 5_000 } });
    const job = await waiter.get(QueueProducer).add('nobody', { n: 1 });
    const looked = firstLookDone(waiter);
    const wait = rejection(job.waitUntilFinished({ timeout: WAIT_TIMEOUT }));
    await looked;
    await other.get(QueueAdmin).remove(job.id);
    const { error, took } = await wait;
    expect(error).toBeInstanceOf(JobNotFoundError);
    expect(took).toBeLessThan(2_500);
  });

  it('a job that never existed rejects the wait with JobNotFoundError', async () => {
    const app = await current.startApp({ module: { processing: false } });
    for (const id of ['987654321', 'nope']) {
      const { error } = await rejection(app.get(QueueAdmin).waitUntilFinished(id, { timeout: WAIT_TIMEOUT }));
      expect(error).toBeInstanceOf(JobNotFoundError);
    }
  });
});
