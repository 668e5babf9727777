import { QueueError } from './queue.error';

/** Longest pause a RateLimitError may ask for: a year, like the longest retry delay. */
const MAX_RATE_LIMIT_DELAY = 365 * 24 * 3_600_000;

/**
 * Throw it from a handler when the remote service said "wait" (an HTTP 429 with Retry-After, say): the job goes
 * back to pending without spending an attempt, and the whole queue stops being claimed, by every process, for
 * `delay` ms (rounded up to whole ms, at least 1, at most a year; a non-finite delay means 1000). Like BullMQ's `RateLimitError` after `worker.rateLimit(ms)`, in one throw.
 */
export class RateLimitError extends QueueError {
  /** How long the queue pauses, in ms (at least 1; at most a year). */
  readonly delay: number;

  constructor(delay: number, message?: string) {
    const bounded = Number.isFinite(delay) ? Math.min(Math.max(Math.ceil(delay), 1), MAX_RATE_LIMIT_DELAY) : 1000;
    super(message ?? `Rate limited: the queue pauses for ${bounded} ms`);
    this.delay = bounded;
  }
}
