import { TestingModule } from '@nestjs/testing';
import { Subscription } from 'rxjs';
import {
  InvalidJobProgressError,
  Job,
  JobNotRunningError,
  JobProgress,
  Processor,
  QueueAdmin,
  QueueEventOf,
  QueueEvents,
  QueueProcessor,
  QueueProducer,
} from '../lib';
import { errorOf } from './support/ops';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

type Step = 'report' | 'invalid' | 'keep' | 'retry-stale' | 'boundary';

/**
 * What the handler does is decided by `data.step`; the test drives it through `gate` (the handler waits on it
 * after reporting, so the test can read the stored progress while the job is still running).
 */
@Processor('work', { backoff: { type: 'fixed', delay: 0 }, maxAttempts: 2 })
class ProgressProcessor implements QueueProcessor<{ step: Step }, string> {
  gate = deferred();
  reported = deferred();
  readonly outcomes: string[] = [];
  readonly kept: Job[] = [];

  async process(job: Job<{ step: Step }>): Promise<string> {
    switch (job.data.step) {
      case 'report':
        await job.updateProgress(10);
        await job.updateProgress({ stage: 'download', done: 2, of: 5 });
        this.reported.resolve();
        await this.gate.promise;
        await job.updateProgress(100);
        return 'done';
      case 'invalid': {
        await job.updateProgress(1);
        const circular: Record<string, unknown> = {};
        circular.self = circular;
        const bad: unknown[] = [
          'half',
          [1, 2],
          null,
          undefined,
          Number.NaN,
          Number.POSITIVE_INFINITY,
          true,
          { big: 10n },
          circular,
          { text: 'x'.repeat(16 * 1024) },
        ];
        for (const value of bad) {
          try {
            await job.updateProgress(value as JobProgress);
            this.outcomes.push('accepted');
          } catch (error) {
            this.outcomes.push(error instanceof InvalidJobProgressError ? 'InvalidJobProgressError' : `other: ${String(error)}`);
          }
        }
        return 'done';
      }
      case 'boundary': {
        // {"s":"…"} is 8 bytes of JSON around the string.
        const exact = { s: 'y'.repeat(16 * 1024 - 8) };
        const over = { s: 'y'.repeat(16 * 1024 - 7) };
        await job.updateProgress(exact);
        this.outcomes.push('exact accepted');
        try {
          await job.updateProgress(over);
          this.outcomes.push('over accepted');
        } catch (error) {
          this.outcomes.push(error instanceof InvalidJobProgressError ? 'over rejected' : `other: ${String(error)}`);
        }
        return 'done';
      }
      case 'keep':
        this.kept.push(job);
        await job.updateProgress(42);
        return 'done';
      case 'retry-stale':
        this.kept.push(job);
        if (job.attempt === 1) {
          await job.updateProgress({ attempt: 1 });
          throw new Error('first attempt fails');
        }
        // The first attempt's Job object is no longer the running attempt.
        try {
          await this.kept[0].updateProgress({ stale: true });
          this.outcomes.push('stale accepted');
        } catch (error) {
          this.outcomes.push(error instanceof JobNotRunningError ? 'stale JobNotRunningError' : `other: ${String(error)}`);
        }
        await job.updateProgress({ attempt: 2 });
        return 'done';
    }
  }
}

describeEachBackend('job progress', (backend) => {
  let app: TestingModule | undefined;
  let progressEvents: QueueEventOf<'progress'>[];
  let subscription: Subscription | undefined;
  // Before the app closes (perTestApp's afterEach runs next): a held handler would hold up shutdown.
  afterEach(() => {
    subscription?.unsubscribe();
    app?.get(ProgressProcessor).gate.resolve();
    app = undefined;
  });
  const current = perTestApp(backend, MIGRATED);
  beforeEach(async () => {
    app = await current.compileApp({ module: { pollInterval: 100 }, providers: [ProgressProcessor] });
    progressEvents = [];
    subscription = app
      .get(QueueEvents)
      .on('progress')
      .subscribe((event) => progressEvents.push(event));
    await app.init();
  });

  const admin = () => app!.get(QueueAdmin);
  const producer = () => app!.get(QueueProducer);
  const processor = () => app!.get(ProgressProcessor);
  const statusOf = async (id: string) => (await admin().getJob(id))?.status;

  it('stores each report on the job (visible while it runs) and emits one progress event per report, in order', async () => {
    const job = await producer().add('work', { step: 'report' as Step });
    await processor().reported.promise;

    const running = await admin().getJob(job.id);
    expect(running).toMatchObject({ status: 'running', progress: { stage: 'download', done: 2, of: 5 } });
    expect(progressEvents.map((event) => [event.jobId, event.attempt, event.progress])).toEqual([
      [job.id, 1, 10],
      [job.id, 1, { stage: 'download', done: 2, of: 5 }],
    ]);

    processor().gate.resolve();
    await waitFor(async () => (await statusOf(job.id)) === 'completed', 'job completed');
    expect(await admin().getJob(job.id)).toMatchObject({ status: 'completed', progress: 100, result: 'done' });
    expect(progressEvents.map((event) => event.progress)).toEqual([10, { stage: 'download', done: 2, of: 5 }, 100]);
    expect(progressEvents.every((event) => event.type === 'progress' && event.queue === 'work')).toBe(true);
  });

  it('rejects values that are not a finite number or a plain JSON object within 16 KiB with InvalidJobProgressError, storing and emitting nothing', async () => {
    const job = await producer().add('work', { step: 'invalid' as Step });
    await waitFor(async () => (await statusOf(job.id)) === 'completed', 'job completed');

    expect(processor().outcomes).toEqual(Array.from({ length: 10 }, () => 'InvalidJobProgressError'));
    // Only the one valid report was stored and announced.
    expect((await admin().getJob(job.id))?.progress).toBe(1);
    expect(progressEvents.map((event) => event.progress)).toEqual([1]);
  });

  it('accepts exactly 16 KiB of JSON and rejects one byte more', async () => {
    const job = await producer().add('work', { step: 'boundary' as Step });
    await waitFor(async () => (await statusOf(job.id)) === 'completed', 'job completed');
    expect(processor().outcomes).toEqual(['exact accepted', 'over rejected']);
    const stored = (await admin().getJob(job.id))?.progress as { s: string };
    expect(Buffer.byteLength(JSON.stringify(stored))).toBe(16 * 1024);
    expect(progressEvents).toHaveLength(1);
  });

  it('rejects with JobNotRunningError outside the running attempt: a producer job, a finished job, a previous attempt', async () => {
    // A job as add() returns it has not run.
    const fresh = await producer().add('work', { step: 'keep' as Step });
    expect(await errorOf(() => fresh.updateProgress(5))).toBeInstanceOf(JobNotRunningError);

    await waitFor(async () => (await statusOf(fresh.id)) === 'completed', 'job completed');
    const [kept] = processor().kept;
    expect(kept.id).toBe(fresh.id);
    // The same Job object, after its handler returned.
    expect(await errorOf(() => kept.updateProgress(99))).toBeInstanceOf(JobNotRunningError);
    expect((await admin().getJob(fresh.id))?.progress).toBe(42);

    processor().kept.length = 0;
    const retried = await producer().add('work', { step: 'retry-stale' as Step });
    await waitFor(async () => (await statusOf(retried.id)) === 'completed', 'retried job completed');
    expect(processor().outcomes).toEqual(['stale JobNotRunningError']);
    expect(await admin().getJob(retried.id)).toMatchObject({ attempts: 2, progress: { attempt: 2 } });
    expect(progressEvents.filter((event) => event.jobId === retried.id).map((event) => [event.attempt, event.progress])).toEqual([
      [1, { attempt: 1 }],
      [2, { attempt: 2 }],
    ]);
  });
});
