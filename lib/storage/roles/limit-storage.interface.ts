import type { AttemptRef, QueueLimiterRecord, StoredQueueLimits } from '../storage-records';

/** Queue limits kept for every process: declared rate limiters, a `RateLimitError`'s pause, and when a limited queue opens again. */
export interface LimitStorage {
  /**
   * Records the limiters of queues this process runs, for every process: each claim of a rate-limited queue counts
   * against the window kept with it. Creates the queue's row, which a limited claim also relies on.
   */
  declareLimits(limiters: QueueLimiterRecord[], now: number): Promise<void>;
  /**
   * Stops claims of `queue`, by every process, until `until` (epoch ms; an earlier pause already in place is kept
   * when longer), and hands `ref` back to pending without counting its attempt. Two statements on SQLite (the pause
   * first: a crash between them leaves the job to lease recovery); false when the job was no longer owned.
   */
  rateLimit(queue: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean>;
  /**
   * Of these queues, those that cannot be claimed now because their rate window is used up or a RateLimitError
   * paused them, with the epoch ms when they can be claimed again. Read by the poller after a rate-limited queue
   * came back short, so that it waits for the window's end instead of polling.
   */
  limitedUntil(queues: string[], now: number): Promise<Map<string, number>>;
  /**
   * Stops claims of `group` of `queue`, by every process, until `until` (a longer pause in place is kept), and hands
   * `ref` back to pending without counting its attempt (a GroupRateLimitError): the pause first, as `rateLimit`.
   * False when the job was no longer owned.
   */
  groupRateLimit(queue: string, group: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean>;
  /**
   * When the first group of `queue` that a GroupRateLimitError pause or a used-up group window holds back at `now`,
   * among the groups with a due pending job, opens again; null when no such group waits. Read by the poller after a
   * queue with a group limiter came back short, so that it wakes then instead of waiting for the fallback poll.
   */
  groupOpensAt(queue: string, now: number): Promise<number | null>;
  /**
   * The limiters stored for `queue` (what its processors declared, for every process) and, at `now`, when a used-up
   * window or a RateLimitError pause lets it be claimed again; null when the queue has no row (never declared, paused
   * or limited).
   */
  storedLimits(queue: string, now: number): Promise<StoredQueueLimits | null>;
}
