import { join } from 'node:path';
import { Logger, Provider } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { Subscription } from 'rxjs';
import {
  Job,
  OnJobEvent,
  Processor,
  QueueAdmin,
  QueueEvent,
  QueueEventOf,
  QueueEvents,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModuleOptions,
  UnrecoverableError,
} from '../lib';
import { ChildApp, readRunLog, startChildApp } from './support/child-app';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp } from './support/backends';
import { shortLeases } from './support/test-timings';

interface FlakyData {
  /** Throw on attempts <= failTimes. */
  failTimes?: number;
  /** Throw an UnrecoverableError on the first attempt. */
  unrecoverable?: boolean;
}

@Processor('flaky', { backoff: { type: 'fixed', delay: 0 }, maxAttempts: 3 })
class FlakyProcessor implements QueueProcessor<FlakyData, { ok: number }> {
  readonly heard: QueueEvent[] = [];

  async process(job: Job<FlakyData>): Promise<{ ok: number }> {
    if (job.data.unrecoverable) throw new UnrecoverableError('no point retrying');
    if (job.attempt <= (job.data.failTimes ?? 0)) throw new Error(`planned failure ${job.attempt}`);
    return { ok: job.attempt };
  }

  @OnJobEvent('active') onActive(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('progress') onProgress(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('retrying') onRetrying(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('stalled') onStalled(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('completed') onCompleted(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('failed') onFailed(event: QueueEvent) {
    this.heard.push(event);
  }
  @OnJobEvent('cancelled') onCancelled(event: QueueEvent) {
    this.heard.push(event);
  }
}

/** A second queue, to check that @OnJobEvent and QueueEvents.on(type, queue) only see their own queue. */
@Processor('other')
class OtherProcessor implements QueueProcessor<number, number> {
  readonly heard: QueueEvent[] = [];
  async process(job: Job<number>): Promise<number> {
    return job.data * 2;
  }
  @OnJobEvent('completed') onCompleted(event: QueueEvent) {
    this.heard.push(event);
  }
}

/** Listeners that throw or reject on every event; the queue must not care. */
@Processor('fragile', { concurrency: 4 })
class FragileProcessor implements QueueProcessor<number, number> {
  activeCalls = 0;
  progressCalls = 0;
  completedCalls = 0;
  readonly progressResults: string[] = [];

  async process(job: Job<number>): Promise<number> {
    // The progress listener throws: updateProgress must still resolve.
    await job.updateProgress(50).then(
      () => this.progressResults.push('resolved'),
      (error: unknown) => this.progressResults.push(`rejected: ${String(error)}`),
    );
    return job.data;
  }

  @OnJobEvent('active') onActive(): void {
    this.activeCalls++;
    throw new Error('listener exploded synchronously');
  }
  @OnJobEvent('progress') onProgress(): void {
    this.progressCalls++;
    throw new Error('progress listener exploded');
  }
  @OnJobEvent('completed') async onCompleted(): Promise<void> {
    this.completedCalls++;
    await Promise.resolve();
    throw new Error('listener rejected');
  }
}

/** A processor for the stalled test: it succeeds at once. */
@Processor('stall', { backoff: { type: 'fixed', delay: 0 } })
class StallProcessor implements QueueProcessor<unknown, string> {
  readonly heard: QueueEvent[] = [];
  async process(job: Job): Promise<string> {
    return `recovered in attempt ${job.attempt}`;
  }
  @OnJobEvent('stalled') onStalled(event: QueueEvent) {
    this.heard.push(event);
  }
}

const summary = (events: QueueEvent[], jobId: string) =>
  events.filter((event) => event.jobId === jobId).map((event) => [event.type, event.attempt]);

describeEachBackend('job events: @OnJobEvent and QueueEvents', (backend) => {
  let app: TestingModule | undefined;
  let child: ChildApp | undefined;
  const subscriptions: Subscription[] = [];

  afterEach(async () => {
    subscriptions.splice(0).forEach((subscription) => subscription.unsubscribe());
    await child?.kill();
    child = undefined;
    app = undefined;
    jest.restoreAllMocks();
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);

  async function startApp(providers: Provider[], options: SqliteQueueModuleOptions = {}): Promise<TestingModule> {
    app = await current.compileApp({ module: { pollInterval: 100, ...options }, providers });
    // Subscribe before init so not even the first event can be missed.
    return app;
  }

  function record(events: QueueEvents): QueueEvent[] {
    const seen: QueueEvent[] = [];
    subscriptions.push(events.events$.subscribe((event) => seen.push(event)));
    return seen;
  }

  it('a job that fails twice then succeeds emits active, retrying, active, retrying, active, completed (attempts 1, 2, 3), in order, to both APIs', async () => {
    const testing = await startApp([FlakyProcessor, OtherProcessor]);
    const streamed = record(testing.get(QueueEvents));
    const completedOfFlaky: QueueEventOf<'completed'>[] = [];
    subscriptions.push(
      testing
        .get(QueueEvents)
        .on('completed', 'flaky')
        .subscribe((event) => completedOfFlaky.push(event)),
    );
    const completedAnywhere: QueueEventOf<'completed'>[] = [];
    subscriptions.push(
      testing
        .get(QueueEvents)
        .on('completed')
        .subscribe((event) => completedAnywhere.push(event)),
    );
    await testing.init();
    const producer = testing.get(QueueProducer);

    const job = await producer.add<FlakyData>('flaky', { failTimes: 2 });
    const other = await producer.add<number>('other', 21);
    await waitFor(() => completedOfFlaky.length === 1 && completedAnywhere.length === 2, 'both jobs completed');

    const expected = [
      ['active', 1],
      ['retrying', 1],
      ['active', 2],
      ['retrying', 2],
      ['active', 3],
      ['completed', 3],
    ];
    const processor = testing.get(FlakyProcessor);
    expect(summary(processor.heard, job.id)).toEqual(expected);
    // QueueEvents also carries the job's 'added' (the processor listens to none).
    expect(summary(streamed, job.id)).toEqual([['added', 0], ...expected]);

    const events = streamed.filter((event) => event.jobId === job.id);
    expect(events.every((event) => event.queue === 'flaky' && event.timestamp instanceof Date)).toBe(true);
    const retrying = events.filter((event): event is QueueEventOf<'retrying'> => event.type === 'retrying');
    expect(retrying.map((event) => [event.error.name, event.error.message, event.error.attempt])).toEqual([
      ['Error', 'planned failure 1', 1],
      ['Error', 'planned failure 2', 2],
    ]);
    retrying.forEach((event) => expect(event.nextRunAt).toBeInstanceOf(Date));
    expect(completedOfFlaky[0]).toMatchObject({ type: 'completed', queue: 'flaky', jobId: job.id, attempt: 3, result: { ok: 3 } });
    // Timestamps never go backwards along the job's life.
    const times = events.map((event) => event.timestamp.getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    // Each API sees only what it asked for.
    expect(completedAnywhere.map((event) => event.jobId).sort()).toEqual([job.id, other.id].sort());
    expect(processor.heard.some((event) => event.queue !== 'flaky')).toBe(false);
    expect(testing.get(OtherProcessor).heard).toEqual([
      expect.objectContaining({ type: 'completed', jobId: other.id, result: 42, attempt: 1 }),
    ]);
    expect(await testing.get(QueueAdmin).getJob(job.id)).toMatchObject({ status: 'completed', attempts: 3, result: { ok: 3 } });
  });

  it('a job that runs out of attempts emits failed with the last error; an UnrecoverableError fails at once', async () => {
    const testing = await startApp([FlakyProcessor]);
    const streamed = record(testing.get(QueueEvents));
    await testing.init();
    const producer = testing.get(QueueProducer);

    const exhausted = await producer.add<FlakyData>('flaky', { failTimes: 99 }, { maxAttempts: 2 });
    const hopeless = await producer.add<FlakyData>('flaky', { unrecoverable: true });
    const failed = () => streamed.filter((event) => event.type === 'failed');
    await waitFor(() => failed().length === 2, 'both jobs failed');

    expect(summary(streamed, exhausted.id)).toEqual([
      ['added', 0],
      ['active', 1],
      ['retrying', 1],
      ['active', 2],
      ['failed', 2],
    ]);
    expect(summary(streamed, hopeless.id)).toEqual([
      ['added', 0],
      ['active', 1],
      ['failed', 1],
    ]);
    const byJob = new Map(failed().map((event) => [event.jobId, event as QueueEventOf<'failed'>]));
    expect(byJob.get(exhausted.id)!.error).toMatchObject({ name: 'Error', message: 'planned failure 2', attempt: 2 });
    expect(byJob.get(hopeless.id)!.error).toMatchObject({ name: 'UnrecoverableError', message: 'no point retrying', attempt: 1 });
    expect(summary(testing.get(FlakyProcessor).heard, exhausted.id)).toEqual(summary(streamed, exhausted.id).slice(1));
  });

  it('listeners that throw or reject are logged and never stop processing, progress or later events', async () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const testing = await startApp([FragileProcessor]);
    const completed: string[] = [];
    subscriptions.push(
      testing
        .get(QueueEvents)
        .on('completed', 'fragile')
        .subscribe((event) => completed.push(event.jobId)),
    );
    await testing.init();
    const producer = testing.get(QueueProducer);
    const admin = testing.get(QueueAdmin);

    const jobs = await producer.addBulk(
      'fragile',
      Array.from({ length: 20 }, (_, i) => ({ data: i })),
    );
    await waitFor(async () => (await admin.getCounts('fragile')).completed === 20, 'all 20 jobs completed');
    const processor = testing.get(FragileProcessor);
    // The throwing listeners stayed subscribed: they were called for every job, not just the first.
    await waitFor(() => processor.completedCalls === 20, 'the rejecting completed listener called for every job');
    expect(processor.activeCalls).toBe(20);
    expect(processor.progressCalls).toBe(20);
    expect(processor.progressResults).toEqual(Array.from({ length: 20 }, () => 'resolved'));
    expect(completed.sort()).toEqual(jobs.map((job) => job.id).sort());
    expect(await admin.getCounts('fragile')).toEqual({ pending: 0, running: 0, completed: 20, failed: 0, cancelled: 0, claimed: 0 });
    for (const job of jobs)
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', result: Number(job.data), attempts: 1 });

    // Each failure was logged, naming the listener and the job.
    const messages = logged.mock.calls.map((call) => String(call[0]));
    await waitFor(() => logged.mock.calls.filter((call) => String(call[0]).includes('onCompleted')).length === 20, 'rejections logged');
    for (const [method, type] of [
      ['onActive', 'active'],
      ['onProgress', 'progress'],
    ]) {
      const lines = messages.filter((message) => message.includes(`FragileProcessor.${method}()`));
      expect(lines).toHaveLength(20);
      expect(lines.every((line) => line.includes(`'${type}'`))).toBe(true);
    }
    for (const job of jobs) {
      expect(messages.some((message) => message.includes(`job ${job.id} `) && message.includes('onActive'))).toBe(true);
    }
  });

  it('emits stalled (requeued) in the process that recovers a job whose owner was killed with SIGKILL, then active and completed', async () => {
    const runLog = join(current.db.path, '..', 'run.log');
    child = startChildApp({
      connection: current.db.options,
      runLog,
      module: shortLeases(backend),
      queues: [{ name: 'stall', maxAttempts: 3 }],
      produce: { queue: 'stall', count: 1, data: { hang: true } },
    });
    await waitFor(() => readRunLog(runLog).length === 1, 'the child started the job', 60_000);
    const [{ id, pid }] = readRunLog(runLog);
    expect(pid).toBe(child.process.pid);

    const testing = await startApp([StallProcessor], shortLeases(backend));
    const streamed = record(testing.get(QueueEvents));
    await testing.init();
    expect(await testing.get(QueueAdmin).getJob(id)).toMatchObject({ status: 'running', attempts: 1 });

    await child.kill();
    await waitFor(
      () => streamed.some((event) => event.type === 'completed' && event.jobId === id),
      'the job recovered and completed here',
      30_000,
    );

    expect(summary(streamed, id)).toEqual([
      ['stalled', 1],
      ['active', 2],
      ['completed', 2],
    ]);
    expect(streamed.find((event) => event.type === 'stalled')).toMatchObject({ queue: 'stall', jobId: id, attempt: 1, requeued: true });
    expect(testing.get(StallProcessor).heard).toEqual([expect.objectContaining({ type: 'stalled', jobId: id, requeued: true })]);
    expect(await testing.get(QueueAdmin).getJob(id)).toMatchObject({ status: 'completed', attempts: 2, result: 'recovered in attempt 2' });
  });

  it('emits stalled (not requeued) and failed when the killed owner held the last attempt', async () => {
    const runLog = join(current.db.path, '..', 'run.log');
    child = startChildApp({
      connection: current.db.options,
      runLog,
      module: shortLeases(backend),
      queues: [{ name: 'stall', maxAttempts: 1 }],
      produce: { queue: 'stall', count: 1, data: { hang: true } },
    });
    await waitFor(() => readRunLog(runLog).length === 1, 'the child started the job', 60_000);
    const [{ id }] = readRunLog(runLog);

    const testing = await startApp([StallProcessor], shortLeases(backend));
    const streamed = record(testing.get(QueueEvents));
    await testing.init();
    await child.kill();
    await waitFor(() => streamed.some((event) => event.type === 'stalled'), 'the lease expired and was recovered here', 30_000);
    await waitFor(async () => (await testing.get(QueueAdmin).getJob(id))?.status === 'failed', 'the job failed');

    expect(streamed.find((event) => event.type === 'stalled')).toMatchObject({ jobId: id, attempt: 1, requeued: false });
    // A job that failed for good is announced as failed, whatever made it fail.
    const failed = streamed.find((event): event is QueueEventOf<'failed'> => event.type === 'failed' && event.jobId === id);
    expect(failed).toMatchObject({ queue: 'stall', attempt: 1, error: expect.objectContaining({ name: 'LeaseExpiredError', attempt: 1 }) });
    expect(summary(streamed, id)).toEqual([
      ['stalled', 1],
      ['failed', 1],
    ]);
  });
});
