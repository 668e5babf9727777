import { JobCounts, JobStatus } from './job-info.interface';

/** A queue as `QueueAdmin.listQueues()` shows it. */
export interface QueueInfo {
  name: string;
  counts: JobCounts;
  /** Paused queues claim nothing, in every process sharing the database. */
  paused: boolean;
  /** Whether this application has a `@Processor` for it. */
  hasProcessor: boolean;
  /**
   * Whether some process sharing the database (this one or another) processes it: one with a `@Processor` for it
   * announced itself within the last few announcement periods (30 poll intervals each, 1 to 30 s). False for a
   * queue nobody processes (a typo, a job name passed as the queue, a worker not deployed): its jobs wait for ever.
   */
  processed: boolean;
  /** Its processor's concurrency in this application, when it has one. */
  concurrency: number | null;
}

/** A rate: at most `max` jobs started per `duration` ms. */
export interface QueueRate {
  max: number;
  duration: number;
}

/**
 * The limits on a queue (`QueueAdmin.getQueueLimits`): the rate limiters its processors declared, kept in the database
 * for every process, the concurrency bounds this application's processor (or the module's `queueLimits`) sets, and
 * until when it cannot be claimed now.
 */
export interface QueueLimitsInfo {
  /** Its processor's concurrency in this application (jobs at once in this process), or null without one. */
  concurrency: number | null;
  /** The queue-wide rate limiter (`limiter`) any process declared, or null. */
  limiter: QueueRate | null;
  /** The per-group rate limiter (`groupLimiter`) any process declared, or null. */
  groupLimiter: QueueRate | null;
  /** Most jobs running at once across every process (`globalConcurrency`), as this application sets it, or null. */
  globalConcurrency: number | null;
  /** Most jobs of one group running at once (`groupConcurrency`), as this application sets it, or null. */
  groupConcurrency: number | null;
  /** Until when a used-up rate window or a handler's RateLimitError keeps the queue from being claimed; null when not now. */
  limitedUntil: Date | null;
}

/** Options of `QueueAdmin.getJobs()`. */
export interface GetJobsOptions {
  /** Only jobs of this status. */
  status?: JobStatus;
  /** Only jobs of this name (see `JobOptions.name`). */
  name?: string;
  /** Only jobs of this group (see `JobOptions.group`). */
  group?: string;
  /**
   * Only jobs whose data, name, key (unique or debounce key) or last error (its name and message) contain this text, compared without
   * regard to case (1 to 200 characters; no NUL). Data and error are matched on their stored JSON text, so `"n":2`
   * finds `{ n: 2 }`, and on the text as JSON writes it inside a string, so `say "hi"` finds that value. Combines
   * with `status`, `name` and `group`. It reads the database's newest 100,000 jobs (by id, all queues together) and
   * keeps this queue's: a bounded read on a table of any size, with no index paid by each enqueue. See
   * docs/observability.md, "Search".
   */
  search?: string;
  /**
   * The field the jobs are ordered by (default `'id'`, the order they were enqueued in), with `order`. Ties are broken
   * by id in the same direction, so pages never overlap. `'priority'` orders as the claim takes pending jobs: by
   * priority, then run time and id, so `priority` descending is the order they run in. Jobs without the field
   * (`finishedAt` of an unfinished job, `name` of an unnamed one) come last in both directions. Index-backed, so
   * exact on a table of any size: `id` with every filter; any field among `running` jobs (few: a read of them all);
   * `priority` among `pending` ones; `finishedAt` among `completed`, `failed` or `cancelled` ones (without `group`).
   * Any other combination orders the matching jobs among the database's newest 100,000 (by id), as `search` reads:
   * a bounded read on a table of any size. See docs/observability.md, "Listing order".
   */
  orderBy?: JobOrderBy;
  /** `'desc'` (default: newest, highest, latest first) or `'asc'`. */
  order?: 'asc' | 'desc';
  /** At most this many (1 to 1000, default 50). */
  limit?: number;
  /** Skip this many (default 0). */
  offset?: number;
}

/** The fields `getJobs({ orderBy })` orders by. */
export const JOB_ORDER_FIELDS = ['id', 'createdAt', 'runAt', 'finishedAt', 'priority', 'attempts', 'name'] as const;

/** One of `JOB_ORDER_FIELDS`. */
export type JobOrderBy = (typeof JOB_ORDER_FIELDS)[number];

/** Options of `QueueAdmin.getCounts(queue, options)`. */
export interface CountOptions {
  /** Only jobs of this name (see `JobOptions.name`); needs a queue, since a job name means something within its queue. */
  name?: string;
  /** Only jobs of this group (see `JobOptions.group`); needs a queue; with `name`, that name's jobs of the group. */
  group?: string;
}

/** Options of `QueueAdmin.getGroups(queue, options)`. */
export interface GetGroupsOptions {
  /** At most this many groups (1 to 1000, default 10). */
  limit?: number;
}

/** One group of a queue as `QueueAdmin.getGroups()` shows it. */
export interface GroupInfo {
  /** The group (`JobOptions.group`). */
  group: string;
  /** Its jobs running now, across all processes. */
  running: number;
  /** Its pending jobs (due or not), counted up to 10,000. */
  pending: number;
}

/** Options of `QueueAdmin.getFailureGroups()`. */
export interface FailureGroupsOptions {
  /** At most this many groups, most failures first (1 to 100, default 10). */
  limit?: number;
}

/** Failed jobs of a queue sharing one error, as `QueueAdmin.getFailureGroups()` shows them. */
export interface FailureGroup {
  /** The error's name, as thrown (`Error`, `TypeError`, `LeaseExpiredError`...). */
  name: string;
  /** Its message (a message longer than about 1,800 characters is cut, and grouped by its head). */
  message: string;
  /** Failed jobs with this error among those read (see `getFailureGroups`). */
  count: number;
  /** When the newest of them failed. */
  lastFailedAt: Date;
  /** The id of the newest of them. */
  sampleJobId: string;
}

/** Options of `QueueAdmin.clean()`. */
export interface CleanOptions {
  /** Which jobs: one status or several; never `running`. */
  status: JobStatus | JobStatus[];
  /** Only those finished (pending: created) at least this many ms ago. Default 0: all. */
  olderThan?: number;
}

/** Options of `QueueAdmin.retryAll()`. */
export interface RetryAllOptions {
  /** Resolve with a `RetryAllReport` (which jobs were retried, which skipped) instead of the count. */
  report: true;
}

/** What `QueueAdmin.retryAll(queue, { report: true })` did. */
export interface RetryAllReport {
  /** Ids of the failed jobs made pending again. */
  retried: string[];
  /**
   * Failed jobs left failed because a live (pending or running) job of the queue holds their unique key,
   * with that job's id: retry them once it has finished.
   */
  skipped: { id: string; key: string; heldBy: string }[];
}
