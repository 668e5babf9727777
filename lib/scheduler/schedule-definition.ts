import { Cron } from 'croner';
import { InvalidScheduleError } from '../errors/invalid-schedule.error';
import { ScheduleOptions } from '../interfaces/schedule-options.interface';
import { ScheduleRecord } from '../storage/queue-storage.interface';
import { backoffInputProblem } from '../utils/backoff.util';
import { groupProblem } from '../utils/job-group.util';
import { jobNameProblem } from '../utils/job-name.util';
import { serializeJobData } from '../utils/serialize-job-data.util';
import { SCHEDULE_OPTION_KEYS, unknownOptionProblem } from '../utils/option-keys.util';
import { LIMITS, MAX_TIMER_MS, describeValue, isIntegerInRange, isTimerDuration } from '../utils/validation.util';

const SCHEDULE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;
/** The job options a schedule's occurrences take: those of an `add` that make sense for a job a timer adds. */
const ALLOWED_JOB_OPTIONS = ['name', 'priority', 'maxAttempts', 'backoff', 'timeout', 'removeOnComplete', 'removeOnFail', 'group'];

/**
 * Whether `name` may name a stored schedule: each was stored through the check of `toScheduleRecord`, so any other
 * name names none, and is answered so without a statement (PostgreSQL refuses a NUL parameter with a driver error).
 */
export function isScheduleName(name: string): boolean {
  return SCHEDULE_NAME.test(name);
}

/** Validates a schedule and turns it into a record whose first occurrence is the next one after `now`. */
export function toScheduleRecord(queue: string, name: unknown, options: ScheduleOptions, now: number): ScheduleRecord {
  const invalid = (reason: string) => new InvalidScheduleError(queue, name, reason);
  if (typeof name !== 'string' || !SCHEDULE_NAME.test(name)) {
    throw invalid(`the name must be 1 to 128 letters, digits, "_", ".", ":" or "-", got ${describeValue(name)}`);
  }
  if (typeof options !== 'object' || options === null)
    throw invalid('options must be an object { cron | every, data?, timezone?, jobOptions? }');
  const unknown = unknownOptionProblem(options, SCHEDULE_OPTION_KEYS);
  if (unknown) throw invalid(`option "${unknown.key}" ${unknown.reason}`);
  const { cron, every, timezone, data, jobOptions } = options;
  if ((cron === undefined) === (every === undefined)) throw invalid('give exactly one of cron or every');
  if (every !== undefined && !isIntegerInRange(every, 1, LIMITS.durationMs)) {
    throw invalid(`every must be an integer number of ms from 1 to ${LIMITS.durationMs} (100 years), got ${describeValue(every)}`);
  }
  if (timezone !== undefined) {
    if (cron === undefined) throw invalid('timezone only applies to cron schedules');
    if (!isValidTimeZone(timezone)) throw invalid(`unknown time zone ${describeValue(timezone)}`);
  }
  if (cron !== undefined) {
    if (typeof cron !== 'string' || cron.trim() === '') throw invalid(`cron must be a non-empty string, got ${describeValue(cron)}`);
    try {
      new Cron(cron, { timezone, paused: true });
    } catch (error) {
      throw invalid(`cron expression ${JSON.stringify(cron)} is not valid: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  let serializedData: string;
  try {
    serializedData = serializeJobData(queue, data ?? {}, 'data');
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error));
  }
  if (jobOptions !== undefined) validateJobOptions(jobOptions, invalid);
  const record: ScheduleRecord = {
    queue,
    name,
    cron: cron ?? null,
    every: every ?? null,
    timezone: timezone ?? null,
    data: serializedData,
    options: jobOptions === undefined ? null : JSON.stringify(jobOptions),
    nextRunAt: 0,
  };
  record.nextRunAt = nextOccurrenceAfter(record, now);
  return record;
}

/** The first occurrence of a schedule strictly after `after` (epoch ms). `every` schedules keep their grid. */
export function nextOccurrenceAfter(schedule: ScheduleRecord, after: number): number {
  if (schedule.every !== null) {
    const anchor = schedule.nextRunAt > 0 ? schedule.nextRunAt : after;
    if (anchor > after) return anchor;
    return anchor + (Math.floor((after - anchor) / schedule.every) + 1) * schedule.every;
  }
  const next = new Cron(schedule.cron as string, { timezone: schedule.timezone ?? undefined, paused: true }).nextRun(new Date(after));
  // A cron that can never fire again (e.g. a past year) parks the schedule far in the future.
  return next ? next.getTime() : Number.MAX_SAFE_INTEGER;
}

/** Whether two records define the same schedule (ignoring when it next runs). */
export function sameDefinition(a: ScheduleRecord, b: ScheduleRecord): boolean {
  return a.cron === b.cron && a.every === b.every && a.timezone === b.timezone && a.data === b.data && a.options === b.options;
}

function validateJobOptions(jobOptions: object, invalid: (reason: string) => Error): void {
  const unknown = unknownOptionProblem(jobOptions, ALLOWED_JOB_OPTIONS, 'allowed on a schedule');
  if (unknown) throw invalid(`jobOptions.${unknown.key} ${unknown.reason}`);
  const { name, priority, maxAttempts, backoff, timeout, removeOnComplete, removeOnFail, group } = jobOptions as Record<string, unknown>;
  if (name !== undefined) {
    const problem = jobNameProblem(name);
    if (problem) throw invalid(`jobOptions.name ${problem}`);
  }
  for (const [option, value] of [
    ['removeOnComplete', removeOnComplete],
    ['removeOnFail', removeOnFail],
  ] as const) {
    if (value !== undefined && typeof value !== 'boolean') throw invalid(`jobOptions.${option} must be true or false`);
  }
  if (priority !== undefined && !isIntegerInRange(priority, 0, Number.MAX_SAFE_INTEGER)) {
    throw invalid(`jobOptions.priority must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`);
  }
  if (maxAttempts !== undefined && !isIntegerInRange(maxAttempts, 1, LIMITS.maxAttempts)) {
    throw invalid(`jobOptions.maxAttempts must be an integer from 1 to ${LIMITS.maxAttempts}`);
  }
  if (timeout !== undefined && !isTimerDuration(timeout))
    throw invalid(`jobOptions.timeout must be a positive number of ms, at most ${MAX_TIMER_MS}`);
  if (backoff !== undefined) {
    const problem = backoffInputProblem(backoff);
    if (problem) throw invalid(`jobOptions.backoff ${problem}`);
  }
  if (group !== undefined) {
    // As add() checks it: a group that would not come back identical from the store is refused.
    const problem = groupProblem(group);
    if (problem) throw invalid(`jobOptions.group ${problem}`);
  }
}

function isValidTimeZone(timezone: unknown): boolean {
  if (typeof timezone !== 'string') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}
