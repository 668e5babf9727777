import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { CascadeOptions } from '../interfaces/flow-job.interface';
import { JOB_STATUSES, JobCounts, JobStatus } from '../interfaces/job-info.interface';
import { CountOptions, GetJobsOptions, JOB_ORDER_FIELDS, JobOrderBy } from '../interfaces/queue-info.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import type { JobSort } from '../storage/shared/job-sort';
import { assertAdminOptions } from '../utils/assert-options.util';
import { closestName } from '../utils/closest-name.util';
import { assertGroupFilter } from '../utils/job-group.util';
import { jobNameProblem } from '../utils/job-name.util';
import { CASCADE_OPTION_KEYS, COUNT_OPTION_KEYS, WAIT_OPTION_KEYS } from '../utils/option-keys.util';
import { MAX_TIMER_MS, describeValue, isTimerDuration } from '../utils/validation.util';

/** The checks of `QueueAdmin`'s arguments, shared by its parts: each refuses bad input before anything is read or written. */

/** Most jobs one page of `getJobs` or `getJobsByKey` returns, and most groups of `getGroups`. */
export const MAX_PAGE = 1000;

/** The job name `getCounts` filters on, if any, once its options are known to be well-formed. */
export function countName(queue: string | undefined, options: CountOptions): string | undefined {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError('getCounts', 'options', `must be an object such as { name }, got ${describeValue(options)}`);
  }
  assertAdminOptions('getCounts', options, COUNT_OPTION_KEYS);
  const { name } = options;
  if (name === undefined) return undefined;
  const problem = jobNameProblem(name);
  if (problem) throw new InvalidArgumentError('getCounts', 'name', problem);
  if (queue === undefined)
    throw new InvalidArgumentError('getCounts', 'name', 'needs a queue: a job name means something within its queue');
  return name;
}

/** The group `getCounts` counts, if any (options already checked by `countName`). */
export function countGroup(queue: string | undefined, options: CountOptions): string | undefined {
  const { group } = options;
  if (group === undefined) return undefined;
  assertGroupFilter('getCounts', group);
  if (queue === undefined) throw new InvalidArgumentError('getCounts', 'group', 'needs a queue: a group means something within its queue');
  return group;
}

/** Every status at 0, and the jobs claimed ahead (after `running`: the dashboard shows the keys in this order). */
export function emptyCounts(): JobCounts {
  return { pending: 0, running: 0, claimed: 0, completed: 0, failed: 0, cancelled: 0 };
}

/** The order `getJobs` asks of the storage (undefined: the default, id newest first), its two options checked. */
export function jobSortOf(options: GetJobsOptions): JobSort | undefined {
  const { orderBy = 'id', order = 'desc' } = options as { orderBy?: unknown; order?: unknown };
  if (!JOB_ORDER_FIELDS.includes(orderBy as JobOrderBy)) {
    const suggestion = typeof orderBy === 'string' ? closestName(orderBy, JOB_ORDER_FIELDS) : null;
    throw new InvalidArgumentError(
      'getJobs',
      'orderBy',
      `must be one of ${JOB_ORDER_FIELDS.join(', ')}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}, got ${describeValue(orderBy)}`,
    );
  }
  if (order !== 'asc' && order !== 'desc') {
    // `'ascending'`, `'DESC'`, `'des'`: the direction meant, by its head or its spelling.
    const lower = typeof order === 'string' ? order.toLowerCase() : null;
    const suggestion =
      lower === null ? null : lower.startsWith('asc') ? 'asc' : lower.startsWith('desc') ? 'desc' : closestName(lower, ['asc', 'desc']);
    throw new InvalidArgumentError(
      'getJobs',
      'order',
      `must be 'asc' or 'desc'${suggestion ? ` (did you mean "${suggestion}"?)` : ''}, got ${describeValue(order)}`,
    );
  }
  return orderBy === 'id' && order === 'desc' ? undefined : { by: orderBy as JobOrderBy, descending: order === 'desc' };
}

/** `status` is one of JOB_STATUSES, else InvalidArgumentError naming `method`. */
export function assertStatus(method: string, status: unknown): asserts status is JobStatus {
  if (!JOB_STATUSES.includes(status as JobStatus)) {
    throw new InvalidArgumentError(method, 'status', `must be one of ${JOB_STATUSES.join(', ')}, got ${describeValue(status)}`);
  }
}

/** The `cascade` of `{ cascade? }` options, checked. */
export function cascadeOf(method: string, options: CascadeOptions): boolean {
  if (typeof options !== 'object' || options === null || (options.cascade !== undefined && typeof options.cascade !== 'boolean')) {
    throw new InvalidArgumentError(method, 'options', `must be { cascade?: boolean }, got ${describeValue(options)}`);
  }
  assertAdminOptions(method, options, CASCADE_OPTION_KEYS);
  return options.cascade === true;
}

/** The `timeout` of wait options, checked. */
export function assertTimeout(method: string, options: WaitOptions): number | undefined {
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError(method, 'options', 'must be an object { timeout? }');
  assertAdminOptions(method, options, WAIT_OPTION_KEYS);
  if (options.timeout !== undefined && !isTimerDuration(options.timeout)) {
    throw new InvalidArgumentError(
      method,
      'timeout',
      `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(options.timeout)}`,
    );
  }
  return options.timeout;
}

/** A job id as the storage takes it; anything else names no job. */
export function assertJobId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) throw new JobNotFoundError(id);
  return id;
}
