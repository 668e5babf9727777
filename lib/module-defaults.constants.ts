/** Defaults and bounds of options, and the fixed values of the engine's timing. */
import { BackoffOptions } from './interfaces/backoff-options.interface';

/** Defaults of the module options that have a plain value. */
export const MODULE_DEFAULTS = {
  database: 'queue.sqlite',
  /** On TypeORM 0.3; from TypeORM 1 on (no `sqlite3` driver) the default is `better-sqlite3`: see `defaultSqliteDriver`. */
  driver: 'sqlite3',
  pollInterval: 1000,
  batchWindow: 0,
  batchSize: 500,
  leaseDuration: 30_000,
  shutdownTimeout: 10_000,
  /**
   * Longer than any migration of a queue's tables should take (8 s on SQLite for 5M jobs; an index build on a far
   * larger PostgreSQL table takes minutes), shorter than a deploy's patience: a lock held longer is a stuck process
   * or a forgotten transaction, better reported than waited for without end.
   */
  migrationLockTimeout: 300_000,
  busyTimeout: 5000,
  processing: true,
  maxAttempts: 3,
  /** Snoozes one job may take (`SnoozeError`) before it fails with SnoozeLimitError. */
  maxSnoozes: 1000,
} as const;

/** Backoff used when neither the job, its processor nor the module sets one. */
export const DEFAULT_BACKOFF: BackoffOptions = { type: 'exponential', delay: 1000, jitter: true };

/** Cap of an exponential backoff without an explicit `maxDelay`. */
export const DEFAULT_MAX_EXPONENTIAL_DELAY = 3_600_000;

/**
 * Longest wait before a retry, whatever the backoff computes (365 days). It keeps every retry's run time a date that
 * JavaScript and both databases can hold: without it, a huge delay overflowed PostgreSQL's bigint (the write failed)
 * and stored an invalid date in SQLite.
 */
export const MAX_RETRY_DELAY = 365 * 24 * 3_600_000;

/** Processor defaults. */
export const PROCESSOR_DEFAULTS: { readonly concurrency: 1; readonly prefetch: number | 'auto' } = { concurrency: 1, prefetch: 'auto' };

/**
 * Most a recovered job's next run is delayed past its recovery, in ms: the window is one lease duration, capped
 * here. Jobs claimed together by a process that died get their own random delays in it, so they are claimed apart
 * next time (a job that kills its process then stops taking the same neighbours with it). The job already waited
 * out its lease; this adds at most this much again.
 */
export const MAX_RECOVERY_JITTER_MS = 10_000;

/** Longest `busyTimeout`: on better-sqlite3 the wait blocks the event loop (timers, heartbeats, requests) that long. */
export const MAX_BUSY_TIMEOUT_MS = 60_000;
