import { Logger } from '@nestjs/common';
import { JobOptions } from '../interfaces/job-options.interface';
import { QueueStorage, ScheduleRecord } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';
import { nextOccurrenceAfter, sameDefinition } from './schedule-definition';

/**
 * Enqueues due occurrences of recurring jobs. Every processing process ticks; the database makes each
 * occurrence a single job whoever gets there first. One statement per tick while nothing is due.
 */
export class Scheduler {
  private timer?: NodeJS.Timeout;
  private nextTickTimer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;
  private readonly readFailures: FailureStreak;

  constructor(
    private readonly storage: QueueStorage,
    private readonly period: number,
    /** maxAttempts of an occurrence whose schedule sets none. */
    private readonly defaultMaxAttempts: (queue: string) => number,
    private readonly logger: Logger,
  ) {
    this.readFailures = new FailureStreak(logger, 'Reading due schedules', period);
  }

  /** Creates or updates schedules; one whose definition is unchanged keeps its next run time. */
  static async upsert(storage: QueueStorage, records: ScheduleRecord[], now: number): Promise<void> {
    if (records.length === 0) return;
    const existing = new Map((await storage.listSchedules()).map((record) => [`${record.queue}\0${record.name}`, record]));
    for (const record of records) {
      const current = existing.get(`${record.queue}\0${record.name}`);
      if (current && sameDefinition(current, record)) continue;
      await storage.upsertSchedule(record, now);
    }
  }

  /** Starts ticking, with one tick at once. */
  start(): void {
    this.timer = setInterval(() => this.runTick(), this.period);
    this.runTick();
  }

  /** Stops ticking and waits for a tick in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.nextTickTimer);
    await this.running;
  }

  private runTick(): void {
    if (this.stopped) return;
    this.running ??= this.tick().finally(() => (this.running = undefined));
  }

  private async tick(): Promise<void> {
    // Every processing process reads, whether or not it defines schedules: another process or an operator may
    // have added some. The read is one indexed statement; while the database fails it backs off and is logged once.
    if (!this.readFailures.canTry()) return;
    const now = Date.now();
    let upcoming: ScheduleRecord[];
    try {
      // One read covers this tick and the next period, so occurrences between two ticks fire on time.
      upcoming = await this.storage.dueSchedules(now + this.period);
      this.readFailures.succeeded();
    } catch (error) {
      this.readFailures.failed(error);
      return;
    }
    const due = upcoming.filter((schedule) => schedule.nextRunAt <= now);
    const soonest = upcoming.reduce((first, schedule) => (schedule.nextRunAt > now ? Math.min(first, schedule.nextRunAt) : first), Infinity);
    if (soonest !== Infinity && !this.stopped) {
      clearTimeout(this.nextTickTimer);
      this.nextTickTimer = setTimeout(() => this.runTick(), soonest - now);
    }
    for (const schedule of due) {
      try {
        const options = schedule.options ? (JSON.parse(schedule.options) as JobOptions) : {};
        await this.storage.enqueueOccurrence(
          {
            schedule,
            occurrenceAt: schedule.nextRunAt,
            // Missed occurrences collapse into this one: the next is the first after now, not after the missed one.
            nextRunAt: nextOccurrenceAfter(schedule, now),
            job: {
              data: schedule.data,
              priority: options.priority ?? 0,
              runAt: now,
              maxAttempts: options.maxAttempts ?? this.defaultMaxAttempts(schedule.queue),
              backoff: options.backoff ? JSON.stringify(options.backoff) : null,
              timeout: options.timeout ?? null,
              key: null,
            },
          },
          now,
        );
      } catch (error) {
        this.logger.error(`Enqueuing schedule "${schedule.name}" of queue ${schedule.queue} failed; retrying next tick: ${String(error)}`);
      }
    }
  }
}
