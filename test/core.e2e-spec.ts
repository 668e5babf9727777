import { Injectable } from '@nestjs/common';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer, WorkerHost } from '../lib';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface Email {
  to: string;
  subject: string;
}

@Processor('email')
class EmailProcessor implements QueueProcessor<Email, string> {
  readonly seen: Job<Email>[] = [];
  async process(job: Job<Email>): Promise<string> {
    this.seen.push(job);
    return `sent to ${job.data.to}`;
  }
}

@Processor('square')
class SquareProcessor extends WorkerHost<number, number> {
  readonly seen: number[] = [];
  async process(job: Job<number>): Promise<number> {
    this.seen.push(job.data);
    return job.data * job.data;
  }
}

/** A plain JavaScript processor: `process` is not async, returns a plain value or throws before any await. */
@Processor('plain', { maxAttempts: 1 })
class PlainProcessor {
  process(job: Job<{ fail: boolean }>): string {
    if (job.data.fail) throw new Error(`sync failure of ${job.id}`);
    return `plain ${job.id}`;
  }
}

@Injectable()
class Holder {}

describeEachBackend('SqliteQueueModule (core)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('runs two processors on two queues with different payload types, and both jobs complete', async () => {
    const app = await current.startApp({ module: { pollInterval: 200 }, providers: [EmailProcessor, SquareProcessor, Holder] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    const email = await producer.add<Email>('email', { to: 'ada@example.com', subject: 'hi' });
    const square = await producer.add<number>('square', 7);
    expect(email.queue).toBe('email');
    expect(square.data).toBe(7);

    await waitFor(
      async () => (await admin.getJob(email.id))?.status === 'completed' && (await admin.getJob(square.id))?.status === 'completed',
      'both jobs completed',
    );
    const emailInfo = await admin.getJob<Email, string>(email.id);
    const squareInfo = await admin.getJob<number, number>(square.id);
    expect(emailInfo).toMatchObject({
      status: 'completed',
      attempts: 1,
      result: 'sent to ada@example.com',
      data: { to: 'ada@example.com', subject: 'hi' },
    });
    expect(squareInfo).toMatchObject({ status: 'completed', attempts: 1, result: 49, data: 7 });
    expect(app.get(EmailProcessor).seen.map((job) => job.data)).toEqual([{ to: 'ada@example.com', subject: 'hi' }]);
    expect(app.get(SquareProcessor).seen).toEqual([7]);
    expect(await admin.getCounts()).toEqual({ pending: 0, running: 0, completed: 2, failed: 0, cancelled: 0, claimed: 0 });
  });

  it('takes a processor whose process() is not async: a plain value completes the job, a synchronous throw fails it', async () => {
    const app = await current.startApp({ module: { pollInterval: 200 }, providers: [PlainProcessor] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const ok = await producer.add('plain', { fail: false });
    const bad = await producer.add('plain', { fail: true });
    await waitFor(
      async () => (await admin.getCounts('plain')).completed + (await admin.getCounts('plain')).failed === 2,
      'both jobs finished',
    );
    expect(await admin.getJob(ok.id)).toMatchObject({ status: 'completed', result: `plain ${ok.id}` });
    expect(await admin.getJob(bad.id)).toMatchObject({
      status: 'failed',
      error: { name: 'Error', message: `sync failure of ${bad.id}`, attempt: 1 },
    });
  });
});
