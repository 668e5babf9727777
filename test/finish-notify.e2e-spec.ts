/**
 * On PostgreSQL: "NOTIFY at completion". A waiting process with a LONG pollInterval learns of a job
 * that another process finished (completed, failed, cancelled by an operator) from the notification sent with the
 * outcome, well before its next poll; and a cluster-events reader is woken the same way when a batch is published.
 * Each bound is far below the waiter's pollInterval, so without the notifications every assertion fails.
 */
import { filter, firstValueFrom } from 'rxjs';
import { QueueAdmin, QueueEvents, QueueProducer } from '../lib';
import { ChildApp, startChildApp } from './support/child-app';
import { describePostgres, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';
import { PgListenClient } from '../lib/storage/postgres/postgres-notification-listener';

// pg ships no types (and @types/pg is not a devDependency): the slice this test uses.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Client } = require('pg') as { Client: new (config: { connectionString: string }) => PgListenClient };

/** The waiting process polls this rarely: anything it learns sooner came from a notification. */
const SLOW_POLL = 5_000;
/** Generous against a loaded machine, yet half the slow poll. */
const PROMPT = 2_500;

describePostgres('waiters and event readers are woken by NOTIFY', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let child: ChildApp | undefined;

  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  async function startWorker(clusterEvents = false): Promise<void> {
    child = startChildApp({
      connection: current.db.options,
      module: { pollInterval: 100, clusterEvents },
      queues: [{ name: 'remote', concurrency: 4 }],
    });
    await child.printed('READY');
  }

  it('a job completed or failed by another process resolves its waiter long before the next poll', async () => {
    await startWorker();
    const app = await current.startApp({ module: { processing: false, pollInterval: SLOW_POLL } });
    const producer = app.get(QueueProducer);
    // Running a while, so the waiter is registered (and has looked once) before the job finishes.
    const ok = await producer.add<{ n: number; sleep: number }, number>('remote', { n: 3, sleep: 400 });
    const failing = await producer.add('remote', { failTimes: 5, sleep: 400 }, { maxAttempts: 1 });
    const started = Date.now();
    const [okInfo, failedInfo] = await Promise.all([
      ok.waitUntilFinished({ timeout: 20_000 }),
      app.get(QueueAdmin).waitUntilFinished(failing.id, { timeout: 20_000 }),
    ]);
    const took = Date.now() - started;
    expect(okInfo).toMatchObject({ status: 'completed', result: 3 });
    expect(failedInfo).toMatchObject({ status: 'failed' });
    expect(took).toBeLessThan(PROMPT);
  });

  it('sends no finish notification while nobody waits anywhere, and one per outcome while someone does', async () => {
    const { url, schema } = (current.db.options as { postgres: { url: string; schema: string } }).postgres;
    await startWorker();
    const app = await current.startApp({ module: { processing: false, pollInterval: SLOW_POLL } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const listener = new Client({ connectionString: url });
    const heard: string[] = [];
    await listener.connect();
    try {
      listener.on('notification', (message) => heard.push(message.payload ?? ''));
      await listener.query(`LISTEN "${schema}_jobs_done"`);
      // Nobody waits: the worker completes the job without announcing it.
      const unwatched = await producer.add('remote', { n: 1 });
      await waitFor(async () => (await admin.getJob(unwatched.id))?.status === 'completed', 'the unwatched job completed');
      // A waiter (here: this process) turns announcements on; its job's id arrives in the payload.
      const watched = await producer.add('remote', { n: 2, sleep: 300 });
      await watched.waitUntilFinished({ timeout: 20_000 });
      await waitFor(() => heard.some((payload) => payload.split(',').includes(watched.id)), 'the announcement of the watched job');
      expect(heard.some((payload) => payload.split(',').includes(unwatched.id))).toBe(false);
    } finally {
      await listener.end();
    }
  });

  it('an operator’s cancel in another process resolves the waiter at once', async () => {
    const waiter = await current.startApp({ module: { processing: false, pollInterval: SLOW_POLL } });
    const operator = await current.startApp({ module: { processing: false, pollInterval: SLOW_POLL } });
    const job = await waiter.get(QueueProducer).add('remote', {});
    const waiting = waiter.get(QueueAdmin).waitUntilFinished(job.id, { timeout: 20_000 });
    // The waiter has looked once (the job is pending) before the cancel: wait for that first look to be over.
    await new Promise((resolve) => setImmediate(resolve));
    await waiter.get(QueueAdmin).getJob(job.id);
    const started = Date.now();
    await operator.get(QueueAdmin).cancel(job.id);
    await expect(waiting).resolves.toMatchObject({ id: job.id, status: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(PROMPT);
  });

  it('a cluster-events reader with a long pollInterval hears a published batch at once', async () => {
    await startWorker(true);
    const app = await current.startApp({ module: { processing: false, pollInterval: SLOW_POLL, clusterEvents: true } });
    const events = app.get(QueueEvents);
    const subscription = events.subscribe(() => undefined);
    // The worker publishes only once it has seen this reader's heartbeat (its check runs every 100 ms).
    await events.listening();
    const job = await app.get(QueueProducer).add('remote', { n: 2, sleep: 400 });
    const started = Date.now();
    const completed = await firstValueFrom(events.on('completed', 'remote').pipe(filter((event) => event.jobId === job.id)));
    subscription.unsubscribe();
    expect(completed).toMatchObject({ result: 2, origin: expect.any(String) });
    expect(Date.now() - started).toBeLessThan(PROMPT);
  });
});
