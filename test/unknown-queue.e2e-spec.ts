/**
 * A control call on a queue nothing knows created it (pausing a mistyped "nope" made a paused queue
 * "nope" appear in `listQueues()`). Now `pause`, `resume`, `retryAll` and `clean` refuse such a queue with
 * `QueueNotFoundError` and write nothing, while every way a queue can be known before its first job still works: a
 * processor in this app, a `registerQueue` handle, a processor announced by another app, a schedule, a stored state row.
 */
import { Injectable, Module } from '@nestjs/common';
import { InjectQueue, Queue, QueueAdmin, QueueNotFoundError, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

const Email = defineProcessor('email', async () => 'sent');
@Module({ providers: [Email] })
class EmailModule {}

@Injectable()
class UsesHandle {
  constructor(@InjectQueue('invoices') readonly invoices: Queue) {}
}
@Module({ imports: [SqliteQueueModule.registerQueue({ name: 'invoices' })], providers: [UsesHandle] })
class InvoicesModule {}

async function errorOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error('the call resolved');
}

describeEachBackend('control calls on a queue nothing knows', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('pause, resume, retryAll and clean of an unknown queue throw QueueNotFoundError and write nothing', async () => {
    const app = await current.startApp({ imports: [EmailModule] });
    const admin = app.get(QueueAdmin);
    const calls: [string, () => Promise<unknown>][] = [
      ['pause', () => admin.pause('emails')],
      ['resume', () => admin.resume('emails')],
      ['retryAll', () => admin.retryAll('emails')],
      ['clean', () => admin.clean('emails', { status: 'completed' })],
    ];
    for (const [operation, call] of calls) {
      const error = await errorOf(call);
      expect(error).toBeInstanceOf(QueueNotFoundError);
      expect(error).toMatchObject({ queue: 'emails', operation, suggestion: 'email' });
      expect((error as Error).message).toContain('Did you mean queue "email"?');
    }
    expect(await admin.hasQueue('emails')).toBe(false);
    expect((await admin.listQueues()).map((queue) => queue.name)).toEqual(['email']);
    // Read-only calls answer for any well-formed name: nothing there.
    expect(await admin.getCounts('emails')).toMatchObject({ pending: 0, completed: 0 });
    expect(await admin.getJobs('emails')).toEqual([]);
  });

  it('a queue known before its first job may be paused: processor here, registerQueue handle, processor elsewhere', async () => {
    // Another app on the database processes "remote": its announcement makes the queue known everywhere.
    const remote = defineProcessor('remote', async () => 'ok');
    @Module({ providers: [remote] })
    class RemoteModule {}
    const elsewhere = await current.startApp({ imports: [RemoteModule] });
    const app = await current.startApp({ module: { processing: false }, imports: [EmailModule, InvoicesModule] });
    const admin = app.get(QueueAdmin);
    await waitFor(async () => admin.hasQueue('remote'), 'the other app announced its processor');
    await admin.pause('email');
    await app.get(UsesHandle).invoices.pause();
    await admin.pause('remote');
    const paused = (await admin.listQueues()).filter((queue) => queue.paused).map((queue) => queue.name);
    expect(paused).toEqual(['email', 'invoices', 'remote']);
    for (const queue of ['email', 'invoices', 'remote']) await admin.resume(queue);
    expect(await elsewhere.get(QueueAdmin).retryAll('remote')).toBe(0);
  });

  it('a schedule, a job or a stored state row makes a queue known to an app that declares nothing', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const admin = app.get(QueueAdmin);
    const producer = app.get(QueueProducer);
    await producer.upsertSchedule('nightly', 'digest', { cron: '0 3 * * *', data: {} });
    await admin.pause('nightly');
    await producer.add('held', { n: 1 });
    await admin.pause('held');
    expect(await admin.clean('held', { status: 'pending' })).toBe(1);
    // Its jobs are gone; its state row (written by pausing) keeps it known.
    await admin.resume('held');
    expect(await admin.hasQueue('held')).toBe(true);
    expect(await admin.hasQueue('nightly')).toBe(true);
    // A queue whose only trace was a job is unknown again once that job is gone: nothing names it any more.
    await producer.add('once', { n: 1 });
    expect(await admin.clean('once', { status: 'pending' })).toBe(1);
    expect(await errorOf(() => admin.pause('once'))).toBeInstanceOf(QueueNotFoundError);
  });
});
