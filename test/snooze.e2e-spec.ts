/**
 * SnoozeError from a handler: the attempt is not spent, the job is pending again and due after the snooze, a
 * `snoozed` event is heard (by @OnQueueEvent listeners too), the job's log shows it, and past the module's maxSnoozes
 * the job fails with SnoozeLimitError. A negative snooze is refused when the error is built.
 */
import { Injectable } from '@nestjs/common';
import {
  InvalidArgumentError,
  InvalidModuleOptionsError,
  Job,
  JobSnoozedEvent,
  OnQueueEvent,
  Processor,
  QueueAdmin,
  QueueEvents,
  QueueEventsListener,
  QueueProcessor,
  QueueProducer,
  SnoozeError,
  SnoozeLimitError,
} from '../lib';
import { MODULE_DEFAULTS } from '../lib/module-defaults.constants';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface SnoozeData {
  /** Snooze this many times (by attempt count seen), then complete. */
  snoozes: number;
  delay: number;
}

const runs: { id: string; attempt: number; at: number }[] = [];

@Processor('snooze', { maxAttempts: 1 })
class SnoozeProcessor implements QueueProcessor<SnoozeData, string> {
  async process(job: Job<SnoozeData>): Promise<string> {
    runs.push({ id: job.id, attempt: job.attempt, at: Date.now() });
    if (runs.filter((run) => run.id === job.id).length <= job.data.snoozes) throw new SnoozeError(job.data.delay);
    return 'awake';
  }
}

const heard: JobSnoozedEvent[] = [];

@Injectable()
@QueueEventsListener('snooze')
class SnoozeListener {
  @OnQueueEvent('snoozed') onSnoozed(event: JobSnoozedEvent) {
    heard.push(event);
  }
}

describeEachBackend('snooze', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  beforeEach(() => {
    runs.length = 0;
    heard.length = 0;
  });

  it('does not spend an attempt: a job with maxAttempts 1 snoozes 3 times, each at least its delay later, then completes', async () => {
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [SnoozeProcessor, SnoozeListener] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const events: JobSnoozedEvent[] = [];
    const subscription = app
      .get(QueueEvents)
      .on('snoozed', 'snooze')
      .subscribe((event) => events.push(event));
    const job = await producer.add<SnoozeData>('snooze', { snoozes: 3, delay: 150 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job completed after three snoozes');

    const mine = runs.filter((run) => run.id === job.id);
    expect(mine.map((run) => run.attempt)).toEqual([1, 1, 1, 1]);
    for (let i = 1; i < mine.length; i++) expect(mine[i].at - mine[i - 1].at).toBeGreaterThanOrEqual(140);
    const info = (await admin.getJob(job.id))!;
    expect(info).toMatchObject({ status: 'completed', attempts: 1, maxAttempts: 1, snoozes: 3, error: null, result: 'awake' });
    expect(await admin.getJobLogs(job.id)).toEqual([
      'Snoozed for 150 ms (snooze 1)',
      'Snoozed for 150 ms (snooze 2)',
      'Snoozed for 150 ms (snooze 3)',
    ]);
    expect(heard.map((event) => [event.type, event.jobId, event.delay])).toEqual([
      ['snoozed', job.id, 150],
      ['snoozed', job.id, 150],
      ['snoozed', job.id, 150],
    ]);
    subscription.unsubscribe();
    expect(events).toHaveLength(3);
    expect(heard[0].nextRunAt).toBeInstanceOf(Date);
  });

  it('a snooze wakes this process at its due time: with the default 1 s poll, a 300 ms snooze runs again well before the next poll', async () => {
    // The module's default pollInterval (1000 ms), on purpose: a 50 ms poll finds the job due at once either way. The
    // fallback poll ticks at a fixed period, so a snooze without its wake-up runs at the first tick after it is due;
    // after one such run the snoozes are in step with the ticks and each waits out a whole period (about 1000 ms from
    // run to run). With the wake-up each run comes at the snooze's 300 ms plus one claim round.
    expect(MODULE_DEFAULTS.pollInterval).toBe(1000);
    const app = await current.startApp({ module: {}, providers: [SnoozeProcessor] });
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add<SnoozeData>('snooze', { snoozes: 3, delay: 300 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job completed after three snoozes');
    const mine = runs.filter((run) => run.id === job.id);
    expect(mine).toHaveLength(4);
    const gaps = mine.slice(1).map((run, i) => run.at - mine[i].at);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(290);
      // Clearly below the 1000 ms poll: 300 ms of snooze, up to 400 ms for the write, the timer and the claim.
      expect({ gaps, fast: gap < 700 }).toEqual({ gaps, fast: true });
    }
  });

  it('a snoozed job is pending and due after its snooze', async () => {
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [SnoozeProcessor] });
    const admin = app.get(QueueAdmin);
    const before = Date.now();
    const job = await app.get(QueueProducer).add<SnoozeData>('snooze', { snoozes: 1, delay: 60_000 });
    await waitFor(async () => (await admin.getJob(job.id))?.snoozes === 1, 'the job snoozed once');
    const info = (await admin.getJob(job.id))!;
    expect(info.status).toBe('pending');
    expect(info.attempts).toBe(0);
    expect(info.runAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
  });

  it('past maxSnoozes the job fails with SnoozeLimitError', async () => {
    const app = await current.startApp({ module: { pollInterval: 50, maxSnoozes: 2 }, providers: [SnoozeProcessor] });
    const admin = app.get(QueueAdmin);
    const job = await app.get(QueueProducer).add<SnoozeData>('snooze', { snoozes: 100, delay: 0 });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed at its third snooze');
    const info = (await admin.getJob(job.id))!;
    expect(info.snoozes).toBe(2);
    expect(info.error).toMatchObject({ name: SnoozeLimitError.name });
    expect(runs.filter((run) => run.id === job.id)).toHaveLength(3);
  });
});

describe('snooze: bad input', () => {
  it.each([-1, NaN, Infinity, '5' as unknown as number])('SnoozeError(%p) throws InvalidArgumentError', (delay) => {
    expect(() => new SnoozeError(delay)).toThrow(InvalidArgumentError);
  });

  it.each([-1, 1.5, 'many'])('module option maxSnoozes %p is refused', (maxSnoozes) => {
    expect(() => resolveModuleOptions({ maxSnoozes: maxSnoozes as number })).toThrow(InvalidModuleOptionsError);
  });
});
