import { RetentionOption } from '../interfaces/retention-options.interface';
import { RetentionRule } from '../storage/queue-storage.interface';
import { LIMITS, describeValue, isDurationMs } from '../utils/validation.util';

/** Returns why a retention option is invalid, or null when it is valid. */
export function retentionProblem(option: unknown): string | null {
  if (option === undefined || typeof option === 'boolean') return null;
  if (typeof option === 'number') {
    return Number.isSafeInteger(option) && option >= 0
      ? null
      : `must be true, false, a count >= 0 or { count?, age? }, got ${describeValue(option)}`;
  }
  if (typeof option !== 'object' || option === null)
    return `must be true, false, a count >= 0 or { count?, age? }, got ${describeValue(option)}`;
  const { count, age, ...rest } = option as { count?: unknown; age?: unknown };
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `has unknown key "${unknown[0]}" (known: count, age)`;
  if (count === undefined && age === undefined) return 'needs count, age or both';
  if (count !== undefined && !(Number.isSafeInteger(count) && (count as number) >= 0))
    return `count must be an integer >= 0, got ${describeValue(count)}`;
  if (age !== undefined && !isDurationMs(age)) {
    return `age must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(age)}`;
  }
  return null;
}

/** Whether a (valid) option keeps no finished job at all: `true`, a count of 0, or `{ count: 0 }` with any age. */
export function keepsNothing(option: RetentionOption | undefined): boolean {
  return option === true || option === 0 || (typeof option === 'object' && option.count === 0);
}

/** The rule a (valid) option means at `now`, or null when it keeps everything. */
export function toRetentionRule(option: RetentionOption | undefined, now: number): RetentionRule | null {
  if (option === undefined || option === false) return null;
  if (option === true) return { maxCount: 0 };
  if (typeof option === 'number') return { maxCount: option };
  return { maxCount: option.count, finishedBefore: option.age === undefined ? undefined : now - option.age };
}
