import type { JobFlowInfo } from './flow-job.interface';

/**
 * Where a job is in its life. `pending` includes delayed jobs and jobs waiting for a retry; `cancelled`
 * is set by `QueueAdmin.cancel()`.
 */
export type JobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

/** Every status, in life order. */
export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'running', 'completed', 'failed', 'cancelled'];

/** Statuses a job never leaves on its own. */
export type FinishedJobStatus = 'completed' | 'failed' | 'cancelled';

/** The error of the last failed attempt, as stored on the job. */
export interface JobError {
  /** Class name of the thrown error (`Error`, `JobTimeoutError`, `LeaseExpiredError`...). */
  name: string;
  /** Its message. */
  message: string;
  /** Its stack, when it had one. */
  stack?: string;
  /** Its own `code` property, when it had a string or number one (`ECONNRESET`, `SQLITE_FULL`, an HTTP status...). */
  code?: string | number;
  /** The attempt that failed (1-based). */
  attempt: number;
  /**
   * The errors of the earlier failed attempts, newest first: at most `MAX_EARLIER_ERRORS` (9), their stacks cut to
   * 2,048 characters. Absent on a first failure. A lease that expired is recorded as this attempt's
   * `LeaseExpiredError` without the ones before it.
   */
  previous?: JobError[];
}

/** A job as `QueueAdmin.getJob()` shows it: its whole stored state. */
export interface JobInfo<TData = unknown, TResult = unknown> {
  /** Database id, as a string. */
  id: string;
  /** The queue. */
  queue: string;
  /** The job's name inside its queue (`JobOptions.name`), or null. */
  name: string | null;
  /** Current status. */
  status: JobStatus;
  /** The payload. */
  data: TData;
  /** Higher runs first. */
  priority: number;
  /** Runs started so far (including one in progress). */
  attempts: number;
  /** Total runs allowed. */
  maxAttempts: number;
  /** What the handler resolved with, once `completed` (`null` before, or if it resolved `undefined`). */
  result: TResult | null;
  /** The last failed attempt's error; kept after a later success for the record. */
  error: JobError | null;
  /** The last value passed to `job.updateProgress()`, if any. */
  progress: JobProgress | null;
  /** Deduplication key, if any. */
  key: string | null;
  /** The job's group (`JobOptions.group`), or null. */
  group: string | null;
  /** Worker id of the process running it, while `running`. */
  lockedBy: string | null;
  /** When the current lease ends, while `running`. */
  leaseUntil: Date | null;
  /** When the job was enqueued. */
  createdAt: Date;
  /** When it is (or was) due. */
  runAt: Date;
  /**
   * When its latest attempt started: when a handler got the job. Null before the first run, and while a job of status
   * `running` is claimed ahead (`prefetch`) and waits in its process for a free slot.
   */
  startedAt: Date | null;
  /** When it reached `completed` or `failed`. */
  finishedAt: Date | null;
  /** Last change of any kind. */
  updatedAt: Date;
  /** Its parent and children in a flow: set by `QueueAdmin.getJob()` (not by listings). */
  flow?: JobFlowInfo;
  /** How many times its handler snoozed it (`SnoozeError`); they did not count against `maxAttempts`. */
  snoozes: number;
  /** On a dead letter (processor option `deadLetter`): where it came from and its last error. Null on other jobs. */
  deadLetter: DeadLetterOrigin | null;
  /**
   * Its runs, oldest first: each attempt that ended other than by completing (the newest `MAX_STORED_RUNS`, 10),
   * then the attempt that runs now, completed, or was cancelled while it ran (a job claimed ahead of a free slot has
   * no run for its claim until a handler gets it). A snooze, a hand-back and a rate limit
   * are runs too, though they spend no attempt (the next run has the same `attempt`). Set by `QueueAdmin.getJob()`
   * (not by listings, nor by `waitUntilFinished`); empty before the first claim.
   */
  runs?: JobRun[];
}

/** How a run ended (`JobRun.outcome`). */
export type JobRunOutcome =
  /** It runs now (the job's `lockedBy` holds it). */
  | 'running'
  /** It completed: the job's own start, end and result. */
  | 'completed'
  /** The handler threw (or a result was refused); the job runs again after its backoff. */
  | 'retried'
  /** The handler threw and the job failed for good (attempts spent, `UnrecoverableError`...). */
  | 'failed'
  /** It ran past its `timeout` (`JobTimeoutError`): retried or failed for good as its attempts allow. */
  | 'timed-out'
  /** Its process stopped renewing the lease (crashed, hung, killed); another process took the job back. */
  | 'lease-expired'
  /** The handler threw `SnoozeError`: pending again, no attempt spent. */
  | 'snoozed'
  /** Handed back unspent: the process shut down while holding it, or claimed it and did not start it. */
  | 'handed-back'
  /** The handler threw `RateLimitError`: handed back unspent while its queue pauses. */
  | 'rate-limited'
  /** An operator cancelled the job while this run was in progress. */
  | 'cancelled';

/** One run of a job in its history (`JobInfo.runs`). */
export interface JobRun {
  /** The attempt it ran as (1-based): a snooze, hand-back or rate limit leaves the number to the next run. */
  attempt: number;
  /** How it ended, or `running`. */
  outcome: JobRunOutcome;
  /**
   * When its handler got the job. Null for a run that never started: claimed ahead (`prefetch`), then handed back or
   * recovered after its lease expired before a slot took it; and in rows another tool wrote.
   */
  startedAt: Date | null;
  /**
   * When it ended: its outcome's write, or for `lease-expired` when another process took the job back (the process
   * died before). Null while it runs.
   */
  endedAt: Date | null;
  /**
   * Worker id of the process that ran it (`workerId` of `forRoot`). Null only for a run that completed under the
   * 0.1.0 release (its completion cleared the owner) and in rows another tool wrote.
   */
  owner: string | null;
  /**
   * Its error, for `retried`, `failed`, `timed-out` and `lease-expired`: the entry of `JobInfo.error` (or its
   * `previous`) of this attempt; null when that is no longer kept (a lease expiry keeps no earlier errors).
   */
  error: JobError | null;
  /**
   * Present for a run of a batch handler (`@Processor(queue, { batch })`): how many jobs the call that ran it held,
   * this one included. Absent for a run of a single-job handler, a run that never started, and runs recorded before
   * the batch size was (schema step 19).
   */
  batchSize?: number;
}

/** Most runs a job keeps that ended other than by completing (`JobInfo.runs`); older ones are dropped. */
export const MAX_STORED_RUNS = 10;

/** Where a dead letter came from: the job that failed for good, and how. */
export interface DeadLetterOrigin {
  /** The queue of the job that failed. */
  queue: string;
  /** Its id (it stays there, `failed`). */
  jobId: string;
  /** Its last error. */
  error: JobError | null;
}

/** What `job.updateProgress()` accepts: a number or a small JSON object. */
export type JobProgress = number | Record<string, unknown>;

/**
 * Number of jobs per status, with the jobs claimed ahead apart: `running` counts the jobs a handler has, `claimed`
 * the jobs of status `running` that a process claimed ahead of a free slot (`prefetch`) and holds, unstarted, until one
 * frees. A claimed job holds its lease and counts against `globalConcurrency` and `groupConcurrency` like a running
 * one; `getJob` shows it `running` with no `startedAt`.
 */
export type JobCounts = Record<JobStatus, number> & {
  /** Jobs claimed ahead of a free slot by a process, not started yet (status `running`, `startedAt` null). */
  claimed: number;
};
