import { DEFAULT_MAX_EXPONENTIAL_DELAY, MAX_RETRY_DELAY } from '../module-defaults.constants';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { LIMITS, describeValue, isDurationMs } from './validation.util';

/** Returns why `backoff` is invalid, or `null` when it is valid. */
export function backoffProblem(backoff: unknown): string | null {
  if (typeof backoff !== 'object' || backoff === null) return 'must be an object { type, delay, maxDelay?, jitter? }';
  const { type, delay, maxDelay, jitter } = backoff as Partial<BackoffOptions>;
  if (type !== 'fixed' && type !== 'exponential') return `type must be 'fixed' or 'exponential', got ${String(type)}`;
  // A longer wait would put the retry's due time past what a Date (and the run_at column) holds: the job would never run.
  if (!isDurationMs(delay)) return `delay must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(delay)}`;
  if (maxDelay !== undefined && !isDurationMs(maxDelay)) {
    return `maxDelay must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(maxDelay)}`;
  }
  if (jitter !== undefined && typeof jitter !== 'boolean') return 'jitter must be a boolean';
  return null;
}

/**
 * Delay in ms before the attempt that follows failed attempt `attempt` (1-based): whole, and within
 * [0, MAX_RETRY_DELAY] whatever the options say, so `now + delay` is always a date both backends store.
 */
export function backoffDelay(backoff: BackoffOptions, attempt: number, random: () => number = Math.random): number {
  const base = backoff.type === 'fixed' ? backoff.delay : backoff.delay * 2 ** Math.min(Math.max(attempt - 1, 0), 52);
  const cap = backoff.maxDelay ?? (backoff.type === 'exponential' ? DEFAULT_MAX_EXPONENTIAL_DELAY : Infinity);
  // NaN (a value no validation let through) waits the longest rather than retrying in a hot loop.
  const capped = Number.isNaN(base) || Number.isNaN(cap) ? MAX_RETRY_DELAY : Math.max(0, Math.min(base, cap, MAX_RETRY_DELAY));
  return Math.round(backoff.jitter ? capped / 2 + random() * (capped / 2) : capped);
}
