/**
 * Cluster events across OS processes: an API process (processing: false) waits for, and listens to, jobs
 * that a worker process (test/fixtures/queue-app.ts) runs. Both use only the public API.
 */
import { Injectable } from '@nestjs/common';
import { firstValueFrom, filter, Subscription } from 'rxjs';
import {
  JobCompletedEvent,
  JobRetryingEvent,
  OnQueueEvent,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueEventsListener,
  QueueProducer,
  WaitTimeoutError,
} from '../lib';
import { ChildApp, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

const POLL = 100;

@Injectable()
@QueueEventsListener('remote')
class RemoteListener {
  readonly heard: QueueEvent[] = [];
  @OnQueueEvent('added') onAdded(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnQueueEvent('active') onActive(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnQueueEvent('retrying') onRetrying(event: JobRetryingEvent) {
    this.heard.push(event);
  }
  @OnQueueEvent('completed') onCompleted(event: JobCompletedEvent<number>) {
    this.heard.push(event);
  }
  @OnQueueEvent('failed') onFailed(event: QueueEvent) {
    this.heard.push(event);
  }
}

describeEachBackend('cluster-wide events and waitUntilFinished across processes', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let child: ChildApp | undefined;
  const subscriptions: Subscription[] = [];

  afterEach(async () => {
    subscriptions.splice(0).forEach((subscription) => subscription.unsubscribe());
    await child?.stop();
    child = undefined;
  });

  async function startWorker(clusterEvents: boolean): Promise<void> {
    child = startChildApp({
      connection: current.db.options,
      module: { pollInterval: POLL, clusterEvents },
      queues: [{ name: 'remote', concurrency: 4 }],
    });
    await child.printed('READY');
  }

  it('job.waitUntilFinished() and admin.waitUntilFinished() resolve with the final JobInfo of jobs another process runs', async () => {
    await startWorker(false);
    const app = await current.startApp({ module: { processing: false, pollInterval: POLL } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    const ok = await producer.add<{ n: number }, number>('remote', { n: 7 });
    const failing = await producer.add('remote', { failTimes: 5 }, { maxAttempts: 1 });
    // Many waiters on many jobs share one mechanism; all resolve.
    const many = await producer.addBulk(
      'remote',
      Array.from({ length: 30 }, (_, n) => ({ data: { n } })),
    );
    const [okInfo, failedInfo, again, ...rest] = await Promise.all([
      ok.waitUntilFinished({ timeout: 20_000 }),
      admin.waitUntilFinished(failing.id, { timeout: 20_000 }),
      admin.waitUntilFinished<unknown, number>(ok.id, { timeout: 20_000 }),
      ...many.map((job) => job.waitUntilFinished({ timeout: 20_000 })),
    ]);
    expect(okInfo).toMatchObject({ id: ok.id, status: 'completed', result: 7 });
    expect(again).toMatchObject({ id: ok.id, status: 'completed', result: 7 });
    expect(failedInfo).toMatchObject({ id: failing.id, status: 'failed', error: { message: 'planned failure 1' } });
    expect(rest.map((info) => info.result)).toEqual(many.map((_, n) => n));
    // Already finished: resolves at once.
    await expect(admin.waitUntilFinished(ok.id)).resolves.toMatchObject({ status: 'completed' });
  });

  it('sees a cancel made by an operator, and gives up with WaitTimeoutError after its timeout', async () => {
    // No worker: the job stays pending.
    const app = await current.startApp({ module: { processing: false, pollInterval: POLL } });
    const job = await app.get(QueueProducer).add('remote', {});
    const admin = app.get(QueueAdmin);
    const started = Date.now();
    const timedOut = job.waitUntilFinished({ timeout: 300 });
    await expect(timedOut).rejects.toBeInstanceOf(WaitTimeoutError);
    expect(Date.now() - started).toBeLessThan(5_000);
    const waiting = admin.waitUntilFinished(job.id, { timeout: 20_000 });
    await admin.cancel(job.id);
    await expect(waiting).resolves.toMatchObject({ id: job.id, status: 'cancelled' });
  });

  it('delivers the events of the worker process to @QueueEventsListener methods and to QueueEvents as an Observable', async () => {
    await startWorker(true);
    const app = await current.startApp({
      module: { processing: false, pollInterval: POLL, clusterEvents: true },
      providers: [RemoteListener],
    });
    const events = app.get(QueueEvents);
    const streamed: QueueEvent[] = [];
    subscriptions.push(events.pipe(filter((event) => event.queue === 'remote')).subscribe((event) => streamed.push(event)));
    await events.listening();

    const job = await app.get(QueueProducer).add('remote', { failTimes: 1, n: 42 }, { backoff: { type: 'fixed', delay: 10 } });
    const completed = await firstValueFrom(events.on('completed', 'remote').pipe(filter((event) => event.jobId === job.id)));
    expect(completed).toMatchObject({ type: 'completed', jobId: job.id, attempt: 2, result: 42, origin: expect.any(String) });
    expect(completed.timestamp).toBeInstanceOf(Date);

    const listener = app.get(RemoteListener);
    await waitFor(() => listener.heard.some((event) => event.type === 'completed'), 'the listener heard the completion');
    const summary = (heard: QueueEvent[]) => heard.filter((event) => event.jobId === job.id).map((event) => [event.type, event.attempt]);
    const expected = [
      ['added', 0],
      ['active', 1],
      ['retrying', 1],
      ['active', 2],
      ['completed', 2],
    ];
    expect(summary(listener.heard)).toEqual(expected);
    expect(summary(streamed)).toEqual(expected);
    // 'added' came from this process (no origin); the rest from the worker process (its origin).
    const [added, ...remote] = streamed.filter((event) => event.jobId === job.id);
    expect(added.origin).toBeUndefined();
    expect(new Set(remote.map((event) => event.origin)).size).toBe(1);
    const retrying = remote.find((event): event is JobRetryingEvent => event.type === 'retrying')!;
    expect(retrying.nextRunAt).toBeInstanceOf(Date);
    expect(retrying.error).toMatchObject({ message: 'planned failure 1', attempt: 1 });
  });

  it('without clusterEvents, QueueEvents carries only this process’s events', async () => {
    await startWorker(false);
    const app = await current.startApp({ module: { processing: false, pollInterval: POLL } });
    const streamed: QueueEvent[] = [];
    subscriptions.push(app.get(QueueEvents).subscribe((event) => streamed.push(event)));
    const job = await app.get(QueueProducer).add('remote', { n: 1 });
    await job.waitUntilFinished({ timeout: 20_000 });
    expect(streamed.map((event) => event.type)).toEqual(['added']);
  });
});
