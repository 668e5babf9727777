import { DEFAULT_MAX_EXPONENTIAL_DELAY, MAX_RETRY_DELAY } from '../module-defaults.constants';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { BACKOFF_OPTION_KEYS, unknownOptionProblem } from './option-keys.util';
import { LIMITS, describeValue, isDurationMs } from './validation.util';

/**
 * Why a `backoff` given by the caller (job options, a schedule's, a processor's, the module's) is refused, or null:
 * `backoffProblem`, and before it any key that is none of its four (`maxdelay` would be dropped, the cap the caller
 * meant never applied). Not for a backoff read back from a row: that one is only ever checked by `backoffProblem`.
 */
export function backoffInputProblem(backoff: unknown): string | null {
  if (typeof backoff === 'object' && backoff !== null && !Array.isArray(backoff)) {
    const unknown = unknownOptionProblem(backoff, BACKOFF_OPTION_KEYS);
    if (unknown) return `"${unknown.key}" ${unknown.reason}`;
  }
  return backoffProblem(backoff);
}

/**
 * Returns why `backoff` is invalid, or `null` when it is valid. Keys beyond its four are not looked at: a row stored
 * before they were refused still retries with the backoff it has.
 */
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
