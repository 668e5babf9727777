import { describeValue, unstorableTextProblem } from './validation.util';

/** Longest job name, in UTF-16 code units: a label, not a payload. */
export const MAX_JOB_NAME_LENGTH = 256;

/**
 * Why `name` cannot be a job name, or null when it can: a string of 1 to 256 characters that the database stores
 * unchanged (no NUL, no lone surrogate), so filtering on it finds exactly what was added.
 */
export function jobNameProblem(name: unknown): string | null {
  if (!(typeof name === 'string' && name.length > 0 && name.length <= MAX_JOB_NAME_LENGTH)) {
    return `must be a non-empty string of at most ${MAX_JOB_NAME_LENGTH} characters, got ${describeValue(name)}`;
  }
  return unstorableTextProblem(name);
}

/** Bit of `remove_on` that deletes a job once it completed. */
export const REMOVE_ON_COMPLETE = 1;
/** Bit of `remove_on` that deletes a job once it failed for good. */
export const REMOVE_ON_FAIL = 2;

/** The stored `remove_on` bits of a job's options, or null when neither is set. */
export function removalBits(removeOnComplete: boolean | undefined, removeOnFail: boolean | undefined): number | null {
  const bits = (removeOnComplete ? REMOVE_ON_COMPLETE : 0) | (removeOnFail ? REMOVE_ON_FAIL : 0);
  return bits === 0 ? null : bits;
}
