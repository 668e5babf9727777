/**
 * A rate limit shared by every process of a queue: together they start at most `max` jobs per `duration` ms.
 * Counted in fixed windows kept in the database, so within any one window the cluster never starts more than
 * `max`; across a window boundary, as with any fixed-window limiter, two windows' worth may start close together.
 */
export interface RateLimiterOptions {
  /** Most jobs started per window, by all processes together. An integer of at least 1. */
  max: number;
  /** The window, in ms. */
  duration: number;
}

/** Limits of one queue enforced where jobs are claimed, across every process sharing the database. */
export interface QueueLimits {
  /** Start at most `max` jobs per `duration` ms across all processes. */
  limiter?: RateLimiterOptions;
  /**
   * Run at most this many jobs of the queue at once across all processes (next to the per-process `concurrency`).
   * A job whose lease expired (its process died) no longer counts.
   */
  globalConcurrency?: number;
  /**
   * Run at most this many jobs of one group (`JobOptions.group`) of the queue at once across all processes. Jobs
   * without a group are not bounded by it. A job whose lease expired no longer counts.
   */
  groupConcurrency?: number;
  /**
   * Start at most `max` jobs of one group (`JobOptions.group`) of the queue per `duration` ms, across all processes:
   * each group has a fixed window of its own, kept in the database, so a group at its limit waits while the other
   * groups go on. Jobs without a group are not bounded by it. Same window boundary caveat as `limiter`.
   */
  groupLimiter?: RateLimiterOptions;
}
