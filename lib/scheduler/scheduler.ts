import { Logger } from '@nestjs/common';
import { ScheduleRecord, ScheduleStorage } from '../storage/queue-storage.interface';
import { PeriodicTask } from '../utils/periodic-task';
import { nextOccurrenceAfter, sameDefinition } from './schedule-definition';
import { occurrenceJob } from './occurrence-job';

/**
 * Enqueues due occurrences of recurring jobs. Every processing process ticks; the database makes each
 * occurrence a single job whoever gets there first. One statement per tick while nothing is due.
 */
export class Scheduler {
  private readonly task: PeriodicTask;

  constructor(
    private readonly storage: ScheduleStorage,
    private readonly period: number,
    /** maxAttempts of an occurrence whose schedule sets none. */
    private readonly defaultMaxAttempts: (queue: string) => number,
    private readonly logger: Logger,
  ) {
    // Every processing process reads, whether or not it defines schedules: another process or an operator may
    // have added some. The read is one indexed statement; while the database fails it backs off and is logged once.
    this.task = new PeriodicTask(() => this.tick(), { what: 'Reading due schedules', period, logger, runOnStart: true });
  }

  /** Creates or updates schedules; one whose definition is unchanged keeps its next run time. */
  static async upsert(storage: ScheduleStorage, records: ScheduleRecord[], now: number): Promise<void> {
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
    this.task.start();
  }

  /** Stops ticking and waits for a tick in progress. Idempotent. */
  async stop(): Promise<void> {
    await this.task.stop();
  }

  /** One tick: a failed read throws (the task logs it once and backs off); a failed enqueue is logged per schedule. */
  private async tick(): Promise<void> {
    const now = Date.now();
    // One read covers this tick and the next period, so occurrences between two ticks fire on time.
    const upcoming = await this.storage.dueSchedules(now + this.period);
    const due = upcoming.filter((schedule) => schedule.nextRunAt <= now);
    let soonest = upcoming.reduce((first, schedule) => (schedule.nextRunAt > now ? Math.min(first, schedule.nextRunAt) : first), Infinity);
    for (const schedule of due) {
      // Missed occurrences collapse into this one: the next is the first after now, not after the missed one.
      const nextRunAt = nextOccurrenceAfter(schedule, now);
      // A schedule more frequent than the period is due again before the next tick: wake for it too.
      soonest = Math.min(soonest, nextRunAt);
      try {
        await this.storage.enqueueOccurrence(
          { schedule, occurrenceAt: schedule.nextRunAt, nextRunAt, job: occurrenceJob(schedule, now, this.defaultMaxAttempts) },
          now,
        );
      } catch (error) {
        this.logger.error(`Enqueuing schedule "${schedule.name}" of queue ${schedule.queue} failed; retrying next tick: ${String(error)}`);
      }
    }
    if (soonest < now + this.period) this.task.runAt(soonest);
  }
}
