import { GroupRateLimitError } from '../errors/group-rate-limit.error';
import { RateLimitError } from '../errors/rate-limit.error';
import { SnoozeError } from '../errors/snooze.error';
import { InvalidBatchResultError } from '../errors/invalid-batch-result.error';
import { InvalidJobResultError } from '../errors/invalid-job-result.error';
import { UnrecoverableError } from '../errors/unrecoverable.error';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { JobRecord } from '../storage/queue-storage.interface';
import { backoffDelay, backoffProblem } from '../utils/backoff.util';

/** The backoff an attempt retries with, and whether the job's stored one had to be ignored. */
export interface ResolvedBackoff {
  backoff: BackoffOptions;
  /** The row carries a backoff that cannot be read (written by another tool): `backoff` is the fallback. */
  storedInvalid: boolean;
}

/** What follows a failed attempt: fail for good, or run again `delay` ms later, at `runAt`. */
export type RetryDecision = { kind: 'fail' } | { kind: 'retry'; delay: number; runAt: number; storedBackoffInvalid: boolean };

/** The thrown value if it is a RateLimitError, else null; safe on a Proxy whose traps throw (as `isUnrecoverable`). */
export function asRateLimitError(thrown: unknown): RateLimitError | null {
  try {
    return thrown instanceof RateLimitError ? thrown : null;
  } catch {
    return null;
  }
}

/** Whether a RateLimitError asks to pause only its job's group (a GroupRateLimitError); safe as `asRateLimitError`. */
export function isGroupRateLimit(error: RateLimitError): boolean {
  try {
    return error instanceof GroupRateLimitError;
  } catch {
    return false;
  }
}

/** The thrown value if it is a SnoozeError, else null; safe on a Proxy whose traps throw. */
export function asSnoozeError(thrown: unknown): SnoozeError | null {
  try {
    return thrown instanceof SnoozeError ? thrown : null;
  } catch {
    return null;
  }
}

/** Whether a thrown value asks to fail for good; `instanceof` itself throws on a Proxy whose traps throw. */
export function isUnrecoverable(thrown: unknown): boolean {
  try {
    return thrown instanceof UnrecoverableError || thrown instanceof InvalidJobResultError || thrown instanceof InvalidBatchResultError;
  } catch {
    return false;
  }
}

/**
 * The job's own backoff, else `fallback` (its processor's, else the module's). A stored backoff that cannot be
 * read falls back instead of throwing out of the worker; the caller warns about it.
 */
export function backoffOf(record: Pick<JobRecord, 'backoff'>, fallback: BackoffOptions): ResolvedBackoff {
  if (record.backoff === null) return { backoff: fallback, storedInvalid: false };
  try {
    const stored: unknown = JSON.parse(record.backoff);
    if (backoffProblem(stored) === null) return { backoff: stored as BackoffOptions, storedInvalid: false };
  } catch {
    // falls through: reported by the caller
  }
  return { backoff: fallback, storedInvalid: true };
}

/**
 * Decides what follows a failed attempt: an unrecoverable error, or the last allowed attempt, fails the job for
 * good; anything else retries after the job's backoff. Pure: the clock (`now`) and jitter (`random`) come in.
 */
export function decideRetry(
  record: Pick<JobRecord, 'attempts' | 'maxAttempts' | 'backoff'>,
  thrown: unknown,
  fallback: BackoffOptions,
  now: number,
  random: () => number = Math.random,
): RetryDecision {
  if (isUnrecoverable(thrown) || record.attempts >= record.maxAttempts) return { kind: 'fail' };
  const { backoff, storedInvalid } = backoffOf(record, fallback);
  const delay = backoffDelay(backoff, record.attempts, random);
  return { kind: 'retry', delay, runAt: now + delay, storedBackoffInvalid: storedInvalid };
}
