import { JobOptions } from './job-options.interface';

/**
 * A recurring job: exactly one of `cron` (5 or 6 fields, seconds optional, parsed by croner) or `every`
 * (ms). Each occurrence is enqueued once across all processes sharing the database. After downtime, missed
 * occurrences are not replayed one by one: a schedule that is overdue enqueues ONE job, then continues from
 * the next occurrence after now.
 */
export interface ScheduleOptions<TData = unknown> {
  /** Cron expression, e.g. `'0 * * * *'` (hourly) or `'*\/10 * * * * *'` (every 10 s). */
  cron?: string;
  /** Fixed period in ms (a positive integer). Occurrences keep to a grid: n x every after the first. */
  every?: number;
  /** IANA time zone the cron expression is read in. Default: the process's zone. */
  timezone?: string;
  /** The data each occurrence's job carries. Default `{}`. */
  data?: TData;
  /**
   * Options each occurrence's job gets (`delay`, `runAt` and `key` are not allowed here). Each job is named
   * `jobOptions.name`, else the schedule's name, so one handler can tell scheduled jobs apart by `job.name`.
   */
  jobOptions?: Pick<
    JobOptions,
    'name' | 'priority' | 'maxAttempts' | 'backoff' | 'timeout' | 'removeOnComplete' | 'removeOnFail' | 'group'
  >;
}

/** A schedule declared on a `@Processor`. */
export interface DeclaredSchedule<TData = unknown> extends ScheduleOptions<TData> {
  /** Unique within the queue. */
  name: string;
}

/** A schedule as `QueueProducer.listSchedules()` returns it. */
export interface ScheduleInfo<TData = unknown> {
  queue: string;
  name: string;
  cron: string | null;
  every: number | null;
  timezone: string | null;
  data: TData;
  /** When it runs next; a paused schedule keeps the time it had when paused. */
  nextRunAt: Date;
  /** Paused by `QueueAdmin.pauseSchedule()`: no occurrence is enqueued until it is resumed. */
  paused: boolean;
}
