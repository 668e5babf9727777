/**
 * The helpers docs/testing.md recommends (waitUntilIdle, waitUntilFinished without timers,
 * a shutdown that fits jest's hook timeout) and @OnJobEvent on providers that are not processors.
 */
import { Injectable } from '@nestjs/common';
import {
  InvalidEventListenerError,
  JobCompletedEvent,
  JobFailedEvent,
  OnJobEvent,
  OnQueueEvent,
  QueueAdmin,
  QueueEvent,
  QueueProducer,
  WaitTimeoutError,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { deferred, waitFor } from './support/wait-for';
import { TEST_SHUTDOWN_TIMEOUT } from './support/test-timings';

/** A plain service (not a processor) that listens to job events of one queue and of every queue. */
@Injectable()
class Notifier {
  readonly emails: string[] = [];
  readonly everything: string[] = [];
  @OnJobEvent('completed', { queue: 'email' }) onEmailSent(event: JobCompletedEvent<string>) {
    this.emails.push(event.result);
  }
  @OnJobEvent('failed') onAnyFailure(event: JobFailedEvent) {
    this.everything.push(`${event.queue}:${event.error.message}`);
  }
}

/** @OnQueueEvent outside a @QueueEventsListener class: a boot error, never silently ignored. */
@Injectable()
class Misplaced {
  @OnQueueEvent('completed') onCompleted(_event: QueueEvent) {}
}

describeEachBackend('testing helpers and @OnJobEvent on any provider', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('waitUntilIdle resolves once every job added so far has finished, with no timer in the test', async () => {
    const app = await current.startApp({
      module: { pollInterval: 50 },
      providers: [defineProcessor<number>('email', async (job) => `sent ${job.data}`, { concurrency: 3 })],
    });
    await app.get(QueueProducer).addBulk(
      'email',
      Array.from({ length: 20 }, (_, n) => ({ data: n })),
    );
    const admin = app.get(QueueAdmin);
    await admin.waitUntilIdle('email', { timeout: 20_000 });
    expect(await admin.getCounts('email')).toMatchObject({ pending: 0, running: 0, completed: 20 });
    await admin.waitUntilIdle(undefined, { timeout: 20_000 });
  });

  it('waitUntilIdle times out with WaitTimeoutError while a job still runs', async () => {
    const gate = deferred();
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [defineProcessor('slow', () => gate.promise)] });
    const job = await app.get(QueueProducer).add('slow', {});
    const admin = app.get(QueueAdmin);
    await expect(admin.waitUntilIdle('slow', { timeout: 200 })).rejects.toBeInstanceOf(WaitTimeoutError);
    gate.resolve();
    await expect(job.waitUntilFinished({ timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
  });

  it('with the shutdownTimeout docs/testing.md gives, app.close() with a job that never ends returns within jest’s 5 s hook timeout and hands the job back', async () => {
    const app = await current.startApp({
      module: { shutdownTimeout: TEST_SHUTDOWN_TIMEOUT },
      providers: [defineProcessor('stuck', () => new Promise(() => undefined))],
    });
    const job = await app.get(QueueProducer).add('stuck', {});
    const admin = app.get(QueueAdmin);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'the job runs');
    const started = Date.now();
    await current.close(app);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(TEST_SHUTDOWN_TIMEOUT - 50);
    expect(took).toBeLessThan(4_500);
    const other = await current.startApp({ module: { processing: false } });
    expect(await other.get(QueueAdmin).getJob(job.id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('@OnJobEvent works on a provider that is not a processor: one queue, or every queue', async () => {
    const app = await current.startApp({
      providers: [
        Notifier,
        defineProcessor<string>('email', async (job) => `sent to ${job.data}`),
        defineProcessor('sms', async () => {
          throw new Error('no signal');
        }),
      ],
      module: { maxAttempts: 1 },
    });
    const producer = app.get(QueueProducer);
    const a = await producer.add('email', 'ada');
    const b = await producer.add('sms', 'bob');
    await Promise.all([a.waitUntilFinished({ timeout: 20_000 }), b.waitUntilFinished({ timeout: 20_000 })]);
    const notifier = app.get(Notifier);
    await waitFor(() => notifier.emails.length === 1 && notifier.everything.length === 1, 'both events heard');
    expect(notifier.emails).toEqual(['sent to ada']);
    expect(notifier.everything).toEqual(['sms:no signal']);
  });

  it('@OnQueueEvent outside a @QueueEventsListener class fails app.init() with InvalidEventListenerError', async () => {
    const app = await current.compileApp({ providers: [Misplaced] });
    await expect(app.init()).rejects.toBeInstanceOf(InvalidEventListenerError);
  });
});

/** Compile-time checks: `OnJobEvent(type)` only accepts a handler of that event (or a wider one). */
export class TypedHandlers {
  @OnJobEvent('completed') typedResult(_event: JobCompletedEvent<{ ok: boolean }>) {}
  @OnJobEvent('completed') wide(_event: QueueEvent) {}
  @OnJobEvent('failed') none() {}
  // @ts-expect-error a failed-event handler cannot listen to 'completed'
  @OnJobEvent('completed') wrong(_event: JobFailedEvent) {}
}
