import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobOptions } from '../interfaces/job-options.interface';
import { NewJobRecord } from '../storage/queue-storage.interface';
import { groupProblem } from '../utils/job-group.util';
import { backoffInputProblem } from '../utils/backoff.util';
import { jobNameProblem, removalBits } from '../utils/job-name.util';
import { serializeJobData } from '../utils/serialize-job-data.util';
import { isOptionsObject, JOB_OPTION_KEYS, unknownOptionProblem } from '../utils/option-keys.util';
import {
  LIMITS,
  MAX_TIMER_MS,
  describeValue,
  isDurationMs,
  isIntegerInRange,
  isTimerDuration,
  isValidDate,
  unstorableTextProblem,
} from '../utils/validation.util';

const MAX_KEY_LENGTH = 1024;

/** Defaults a job falls back to when its options leave something out. */
export interface JobDefaults {
  maxAttempts: number;
}

/**
 * Validates one job's data and options and turns them into a row to insert. Throws a typed error naming
 * the offending field (prefixed with `label`, e.g. `items[2].`) before anything is written.
 */
export function prepareJob(
  queue: string,
  data: unknown,
  options: JobOptions | undefined,
  defaults: JobDefaults,
  now: number,
  label = '',
): NewJobRecord {
  const serialized = serializeJobData(queue, data, `${label}data`);
  const invalid = (option: string, reason: string) => new InvalidJobOptionsError(queue, `${label}${option}`, reason);
  if (options === undefined || options === null) {
    const { maxAttempts } = defaults;
    return {
      data: serialized,
      priority: 0,
      runAt: now,
      maxAttempts,
      backoff: null,
      timeout: null,
      key: null,
      name: null,
      removeOn: null,
      group: null,
    };
  }
  // An array is an object too, and an empty one has no key to refuse: it would pass as "no options".
  if (!isOptionsObject(options)) throw invalid('options', `must be an object, got ${describeValue(options)}`);
  // `manager` is among them: the caller's transaction, which the producer uses and does not store.
  const unknown = unknownOptionProblem(options, JOB_OPTION_KEYS);
  if (unknown) throw invalid(unknown.key, unknown.reason);
  const { name, delay, runAt, priority, maxAttempts, backoff, timeout, key, keyTtl, debounce, removeOnComplete, removeOnFail, group } =
    options;
  if (name !== undefined) {
    const problem = jobNameProblem(name);
    if (problem) throw invalid('name', problem);
  }
  if (removeOnComplete !== undefined && typeof removeOnComplete !== 'boolean') {
    throw invalid('removeOnComplete', `must be true or false, got ${describeValue(removeOnComplete)}`);
  }
  if (removeOnFail !== undefined && typeof removeOnFail !== 'boolean') {
    throw invalid('removeOnFail', `must be true or false, got ${describeValue(removeOnFail)}`);
  }
  if (delay !== undefined && !isDurationMs(delay)) {
    throw invalid('delay', `must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(delay)}`);
  }
  if (runAt !== undefined && !(isValidDate(runAt) && runAt.getTime() <= LIMITS.epochMs)) {
    throw invalid('runAt', `must be a valid Date no later than ${new Date(LIMITS.epochMs).toISOString()}, got ${describeValue(runAt)}`);
  }
  if (priority !== undefined && !isIntegerInRange(priority, 0, Number.MAX_SAFE_INTEGER)) {
    const reason = `must be an integer from 0 to ${Number.MAX_SAFE_INTEGER} (higher runs first), got ${describeValue(priority)}`;
    throw invalid('priority', reason);
  }
  if (maxAttempts !== undefined && !isIntegerInRange(maxAttempts, 1, LIMITS.maxAttempts)) {
    throw invalid('maxAttempts', `must be an integer from 1 to ${LIMITS.maxAttempts}, got ${describeValue(maxAttempts)}`);
  }
  if (timeout !== undefined && !isTimerDuration(timeout)) {
    throw invalid('timeout', `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(timeout)}`);
  }
  if (backoff !== undefined) {
    const problem = backoffInputProblem(backoff);
    if (problem) throw invalid('backoff', problem);
  }
  if (key !== undefined) {
    if (!(typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH)) {
      throw invalid('key', `must be a non-empty string of at most ${MAX_KEY_LENGTH} characters, got ${describeValue(key)}`);
    }
    // The key is looked up again after a conflicting insert: one that does not come back identical would never
    // be found, and is refused here rather than stored altered.
    const problem = unstorableTextProblem(key);
    if (problem) throw invalid('key', problem);
  }
  if (group !== undefined) {
    // Compared by the claim and the group filters as stored: one that would not come back identical is refused.
    const problem = groupProblem(group);
    if (problem) throw invalid('group', problem);
  }
  const keyMode = keyModeOf(keyTtl, debounce, key, invalid, now);
  const dependencies = dependenciesOf(options.dependsOn, options.onDependencyFailure, key, invalid);
  return {
    ...keyMode,
    ...dependencies,
    data: serialized,
    priority: priority ?? 0,
    runAt: Math.max(now + Math.round(delay ?? 0), runAt?.getTime() ?? now),
    maxAttempts: maxAttempts ?? defaults.maxAttempts,
    backoff: backoff === undefined ? null : JSON.stringify(backoff),
    timeout: timeout ?? null,
    key: key ?? null,
    name: name ?? null,
    removeOn: removalBits(removeOnComplete, removeOnFail),
    group: group ?? null,
  };
}

/** The throttle window or debounce flag of a job, validated: both need `key`, and they do not mix. */
function keyModeOf(
  keyTtl: unknown,
  debounce: unknown,
  key: string | undefined,
  invalid: (option: string, reason: string) => InvalidJobOptionsError,
  now: number,
): Pick<NewJobRecord, 'keyUntil' | 'debounce'> {
  if (debounce !== undefined && typeof debounce !== 'boolean')
    throw invalid('debounce', `must be true or false, got ${describeValue(debounce)}`);
  if (keyTtl !== undefined && !(isDurationMs(keyTtl) && (keyTtl as number) > 0)) {
    throw invalid('keyTtl', `must be a positive number of ms, at most ${LIMITS.durationMs} (100 years), got ${describeValue(keyTtl)}`);
  }
  if (keyTtl !== undefined && key === undefined) throw invalid('keyTtl', 'needs key: the throttle window is the window of a key');
  if (debounce === true && key === undefined) throw invalid('debounce', 'needs key: an add replaces the pending job of its key');
  if (debounce === true && keyTtl !== undefined)
    throw invalid('debounce', 'does not combine with keyTtl: a key either throttles or debounces');
  if (keyTtl !== undefined) return { keyUntil: now + Math.round(keyTtl as number) };
  return debounce === true ? { debounce: true } : {};
}

/** Most dependencies one job may name: a bound on the statement that writes its edges. */
export const MAX_DEPENDENCIES = 1000;

/** A job id as the storage hands them out: a positive decimal integer without leading zeros. */
const JOB_ID = /^[1-9][0-9]{0,17}$/;

/** Whether `value` is written as the storage writes job ids. */
export function isJobId(value: string): boolean {
  return JOB_ID.test(value);
}

/** `dependsOn` and `onDependencyFailure`, validated: an array of distinct job ids, and a policy only beside it. */
function dependenciesOf(
  dependsOn: unknown,
  policy: unknown,
  key: string | undefined,
  invalid: (option: string, reason: string) => InvalidJobOptionsError,
): Pick<NewJobRecord, 'dependsOn' | 'onDependencyFailure'> {
  if (policy !== undefined && policy !== 'fail' && policy !== 'continue') {
    throw invalid('onDependencyFailure', `must be 'fail' or 'continue', got ${describeValue(policy)}`);
  }
  if (dependsOn === undefined) {
    if (policy !== undefined) throw invalid('onDependencyFailure', 'needs dependsOn: it is what a failed dependency does to the job');
    return {};
  }
  if (!Array.isArray(dependsOn) || dependsOn.length === 0 || dependsOn.length > MAX_DEPENDENCIES) {
    throw invalid('dependsOn', `must be an array of 1 to ${MAX_DEPENDENCIES} job ids, got ${describeValue(dependsOn)}`);
  }
  const seen = new Set<string>();
  // By index, not forEach: a sparse array's holes are items too (undefined), refused rather than skipped.
  for (let index = 0; index < dependsOn.length; index++) {
    const id: unknown = dependsOn[index];
    if (typeof id !== 'string' || !JOB_ID.test(id)) throw invalid(`dependsOn[${index}]`, `must be a job id, got ${describeValue(id)}`);
    if (seen.has(id)) throw invalid(`dependsOn[${index}]`, `repeats job ${id}`);
    seen.add(id);
  }
  // A keyed add may return a job that exists already instead of inserting one: the edges would be another job's.
  if (key !== undefined) throw invalid('dependsOn', 'does not combine with key');
  return { dependsOn: [...seen], onDependencyFailure: policy ?? 'fail' };
}

/** The option that makes a prepared job throttled or debounced (`keyTtl`, `debounce`), or null for a plain one. */
export function keyModeField(record: NewJobRecord): 'keyTtl' | 'debounce' | null {
  if (record.keyUntil !== undefined && record.keyUntil !== null) return 'keyTtl';
  return record.debounce ? 'debounce' : null;
}
