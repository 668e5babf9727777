/**
 * The known option keys of every options object a public method takes, ONE list per interface, and the check that
 * refuses any other key with a "did you mean". A key accepted silently is a filter, a bound or a behaviour the caller
 * believes in and does not get (`getJobs(queue, { serach: 'x' })` returned every job).
 *
 * Each list is declared with `keysOf<Interface>()`, which fails to compile while the list misses a key of the
 * interface: an option added to an interface (`group`, `keyTtl`, `debounce`, `deadLetter`...) is one word added here.
 * An interface declared above this layer (`RedriveOptions`, `QueueBulkJob`) has its list beside it, made the same way.
 */
import type { BackoffOptions } from '../interfaces/backoff-options.interface';
import type { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import type { AddFlowOptions, CascadeOptions, FlowJob } from '../interfaces/flow-job.interface';
import type { AddGraphOptions, GraphJob } from '../interfaces/graph-job.interface';
import type { GetJobDependenciesOptions } from '../interfaces/job-dependencies.interface';
import type {
  CleanOptions,
  CountOptions,
  FailureGroupsOptions,
  GetGroupsOptions,
  GetJobsOptions,
  RetryAllOptions,
} from '../interfaces/queue-info.interface';
import type { ScheduleOptions } from '../interfaces/schedule-options.interface';
import type { WaitOptions } from '../interfaces/wait-options.interface';
import { didYouMean } from './closest-name.util';

/** Keys of `T` missing from `K`; `never` when the list is complete. */
type MissingKeys<T, K extends readonly PropertyKey[]> = Exclude<keyof T, K[number]>;

/**
 * `keysOf<GetJobsOptions>()('status', 'name', ...)`: the list, typed so that a key of the interface left out is a
 * compile error naming it, and a word that is no key of the interface is one too.
 */
export function keysOf<T>() {
  return <const K extends readonly (keyof T & string)[]>(
    ...keys: K & ([MissingKeys<T, K>] extends [never] ? unknown : { missingKeys: MissingKeys<T, K> })
  ): readonly string[] => keys;
}

/** `QueueAdmin.getJobs()`, `Queue.getJobs()`. */
export const GET_JOBS_OPTION_KEYS = keysOf<GetJobsOptions>()('status', 'name', 'group', 'search', 'limit', 'offset', 'orderBy', 'order');
/** `QueueAdmin.getCounts()`, `Queue.getCounts()`. */
export const COUNT_OPTION_KEYS = keysOf<CountOptions>()('name', 'group');
/** `QueueAdmin.clean()`, `Queue.clean()`. */
export const CLEAN_OPTION_KEYS = keysOf<CleanOptions>()('status', 'olderThan');
/** `QueueAdmin.retryAll(queue, options)`. */
export const RETRY_ALL_OPTION_KEYS = keysOf<RetryAllOptions>()('report');
/** `QueueAdmin.cancel()` and `remove()`. */
export const CASCADE_OPTION_KEYS = keysOf<CascadeOptions>()('cascade');
/** `waitUntilFinished()` (admin and an enqueued job's) and `waitUntilIdle()`. */
export const WAIT_OPTION_KEYS = keysOf<WaitOptions>()('timeout');
/** `QueueAdmin.getJobsByKey(queue, key, options)`. */
export const JOBS_BY_KEY_OPTION_KEYS = keysOf<{ limit?: number }>()('limit');
/** `QueueAdmin.getFailureGroups(queue, options)`. */
export const FAILURE_GROUPS_OPTION_KEYS = keysOf<FailureGroupsOptions>()('limit');
/** `QueueAdmin.getGroups(queue, options)`. */
export const GET_GROUPS_OPTION_KEYS = keysOf<GetGroupsOptions>()('limit');
/** `QueueAdmin.getMetrics(options)`. */
/** `QueueAdmin.getJobDependencies()`. */
export const JOB_DEPENDENCIES_OPTION_KEYS = keysOf<GetJobDependenciesOptions>()('limit');
export const METRICS_OPTION_KEYS = keysOf<{ windowMinutes?: number }>()('windowMinutes');
/** `QueueProducer.add()` / `addBulk()` items, `Queue.add()` (where `name` is the first argument). */
export const JOB_OPTION_KEYS = keysOf<JobOptions>()(
  'name',
  'delay',
  'runAt',
  'priority',
  'maxAttempts',
  'backoff',
  'timeout',
  'key',
  'keyTtl',
  'debounce',
  'removeOnComplete',
  'removeOnFail',
  'group',
  'dependsOn',
  'onDependencyFailure',
  'manager',
);
/** A job's `backoff` (job options, a schedule's job options, a processor's and the module's). */
export const BACKOFF_OPTION_KEYS = keysOf<BackoffOptions>()('type', 'delay', 'maxDelay', 'jitter');
/** The fields of a `QueueProducer.addBulk()` item. */
export const BULK_ITEM_FIELDS = keysOf<BulkJobItem>()('data', 'options');
/** The fields of a node of `QueueProducer.addFlow()`. */
export const FLOW_JOB_FIELDS = keysOf<FlowJob>()('queue', 'data', 'options', 'children', 'onChildFailure');
/** `QueueProducer.addFlow(flow, options)`. */
export const ADD_FLOW_OPTION_KEYS = keysOf<AddFlowOptions>()('manager');
/** The fields of a job of `QueueProducer.addGraph()`. */
export const GRAPH_JOB_FIELDS = keysOf<GraphJob>()('ref', 'queue', 'data', 'options');
/** `QueueProducer.addGraph(jobs, options)`. */
export const ADD_GRAPH_OPTION_KEYS = keysOf<AddGraphOptions>()('manager');
/** `QueueProducer.upsertSchedule()`, `Queue.upsertSchedule()`. */
export const SCHEDULE_OPTION_KEYS = keysOf<ScheduleOptions>()('cron', 'every', 'timezone', 'data', 'jobOptions');

/**
 * The first key of `options` that is not in `known`, as a reason for the caller's typed error
 * (`is not an option (did you mean "search"?); known: status, name, ...`), or null when every key is known.
 * Only own enumerable keys are read: what a spread or `Object.keys` would pass on. `what` names what a known key is
 * (`a field of a bulk item`); `aliases` maps a word that is no typo of its meaning (BullMQ's `opts`) to the known key.
 */
export function unknownOptionProblem(
  options: object,
  known: readonly string[],
  what = 'an option',
  aliases: ReadonlyMap<string, string> = NO_ALIASES,
): { key: string; reason: string } | null {
  const key = Object.keys(options).find((candidate) => !known.includes(candidate));
  if (key === undefined) return null;
  const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  return { key: shown, reason: `is not ${what}${didYouMean(key, known, aliases)}; known: ${known.join(', ')}` };
}

const NO_ALIASES: ReadonlyMap<string, string> = new Map();

/** BullMQ's names of a bulk item's or a flow node's fields, which this library spells out. */
export const BULLMQ_FIELD_ALIASES: ReadonlyMap<string, string> = new Map([['opts', 'options']]);

/**
 * The first field of a bulk item or flow node that is not one of `fields`, as a reason, or null. A job option put
 * beside `data` instead of in `options` (`{ data, delay: 100 }`) is told where it goes.
 */
export function strayFieldProblem(item: object, fields: readonly string[], what: string): { key: string; reason: string } | null {
  const problem = unknownOptionProblem(item, fields, what, BULLMQ_FIELD_ALIASES);
  if (problem && JOB_OPTION_KEYS.includes(problem.key)) {
    return { key: problem.key, reason: `is a job option: it goes in options (did you mean "options.${problem.key}"?)` };
  }
  return problem;
}

/** Whether `value` can be an options object at all: a plain object, not an array, a string or null. */
export function isOptionsObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
