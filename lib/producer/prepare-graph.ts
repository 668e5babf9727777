import { DependencyCycleError } from '../errors/dependency-cycle.error';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { GraphJob } from '../interfaces/graph-job.interface';
import { JobOptions } from '../interfaces/job-options.interface';
import { NewGraphNode } from '../storage/queue-storage.interface';
import { GRAPH_JOB_FIELDS, strayFieldProblem } from '../utils/option-keys.util';
import { assertQueueName } from '../utils/queue-name.util';
import { describeValue } from '../utils/validation.util';
import { MAX_DEPENDENCIES, JobDefaults, isJobId, prepareJob } from './prepare-job';

/** Most jobs one graph may hold: a bound on one statement's size. */
export const MAX_GRAPH_JOBS = 10_000;

/**
 * Most dependencies one graph may hold in all: each is a row the statement writes and a link the end of a job walks, and
 * 10,000 jobs of 1,000 each (10M) would make one statement hold the writer, or the rows, for minutes.
 */
export const MAX_GRAPH_DEPENDENCIES = 100_000;

/** Longest `ref`. */
const MAX_REF_LENGTH = 128;

/** Options a graph's job may not have: a keyed add may return another job, and the manager is the whole graph's. */
const REFUSED_OPTIONS = ['key', 'keyTtl', 'debounce', 'manager'] as const;

/** A graph ready to write: its nodes, each after the nodes it depends on, and each node's position in the input. */
export interface PreparedGraph {
  nodes: NewGraphNode[];
  /** `inputIndex[i]`: where `nodes[i]` was in the jobs given. */
  inputIndex: number[];
}

/** A job of the input, checked, with the input positions of the graph's jobs it depends on. */
interface CheckedJob {
  queue: string;
  options: JobOptions | undefined;
  existing: string[];
  refs: number[];
  policy: 'fail' | 'continue';
}

/**
 * Validates the jobs of an `addGraph` call and orders them so every job comes after the jobs of the call it depends
 * on. Throws a typed error naming the offending job (`jobs[2].options.dependsOn[1]`), or `DependencyCycleError` naming
 * a cycle, before anything is written. `checked` holds the data of the jobs whose queue has a schema, as the schema
 * output it (by input position).
 */
export function prepareGraph(
  jobs: unknown,
  defaultsFor: (queue: string) => JobDefaults,
  now: number,
  checked: Map<number, unknown> | null = null,
): PreparedGraph {
  if (!Array.isArray(jobs) || jobs.length === 0 || jobs.length > MAX_GRAPH_JOBS) {
    throw new InvalidJobOptionsError('(graph)', 'jobs', `must be an array of 1 to ${MAX_GRAPH_JOBS} jobs { ref, queue, data, options? }`);
  }
  const positions = new Map<string, number>();
  // By index, not forEach: a sparse array's holes are jobs too (undefined), refused by name rather than skipped.
  for (let index = 0; index < jobs.length; index++) {
    const job: unknown = jobs[index];
    const path = `jobs[${index}]`;
    if (typeof job !== 'object' || job === null || Array.isArray(job)) {
      throw new InvalidJobOptionsError('(graph)', path, `must be an object { ref, queue, data, options? }, got ${describeValue(job)}`);
    }
    const stray = strayFieldProblem(job, GRAPH_JOB_FIELDS, 'a field of a graph job');
    if (stray) throw new InvalidJobOptionsError('(graph)', `${path}.${stray.key}`, stray.reason);
    const { ref } = job as { ref?: unknown };
    if (typeof ref !== 'string' || ref.length === 0 || ref.length > MAX_REF_LENGTH) {
      throw new InvalidJobOptionsError(
        '(graph)',
        `${path}.ref`,
        `must be a string of 1 to ${MAX_REF_LENGTH} characters, got ${describeValue(ref)}`,
      );
    }
    if (positions.has(ref)) throw new InvalidJobOptionsError('(graph)', `${path}.ref`, `repeats the ref of jobs[${positions.get(ref)}]`);
    positions.set(ref, index);
  }
  const checkedJobs = (jobs as GraphJob[]).map((job, index) => checkJob(job, index, positions));
  const links = checkedJobs.reduce((sum, job) => sum + job.existing.length + job.refs.length, 0);
  if (links > MAX_GRAPH_DEPENDENCIES) {
    throw new InvalidJobOptionsError(
      '(graph)',
      'jobs',
      `hold ${links} dependencies in all, more than the ${MAX_GRAPH_DEPENDENCIES} one graph may hold (split it into several calls)`,
    );
  }
  const order = dependencyOrder(checkedJobs, jobs as GraphJob[]);
  const positionOf = new Map(order.map((input, position) => [input, position]));
  const nodes = order.map((input): NewGraphNode => {
    const { queue, options, existing, refs, policy } = checkedJobs[input];
    const job = (jobs as GraphJob[])[input];
    const data = checked !== null && checked.has(input) ? checked.get(input) : job.data;
    const record = prepareJob(queue, data, options, defaultsFor(queue), now, `jobs[${input}].`);
    if (existing.length + refs.length > 0) {
      record.dependsOn = existing;
      record.onDependencyFailure = policy;
    }
    return { queue, job: record, refs: refs.map((ref) => positionOf.get(ref)!) };
  });
  return { nodes, inputIndex: order };
}

/** One job's queue, options and dependencies, checked; its options without the dependencies, for `prepareJob`. */
function checkJob(job: GraphJob, index: number, positions: Map<string, number>): CheckedJob {
  assertQueueName(job.queue);
  const queue = job.queue;
  const path = `jobs[${index}]`;
  const invalid = (field: string, reason: string) => new InvalidJobOptionsError(queue, `${path}.${field}`, reason);
  if (!('data' in job)) throw invalid('data', 'is missing (use null for no payload)');
  const given = job.options as (Record<string, unknown> & JobOptions) | undefined;
  if (given === undefined || given === null || typeof given !== 'object') {
    return { queue, options: given as undefined, existing: [], refs: [], policy: 'fail' };
  }
  if (Array.isArray(given)) throw invalid('options', `must be an object, got ${describeValue(given)}`);
  for (const option of REFUSED_OPTIONS) {
    if (option in given) {
      throw invalid(
        `options.${option}`,
        option === 'manager' ? 'is given for the whole graph: addGraph(jobs, { manager })' : 'is not supported in a graph',
      );
    }
  }
  const { dependsOn, onDependencyFailure, ...options } = given as Record<string, unknown>;
  if (onDependencyFailure !== undefined && onDependencyFailure !== 'fail' && onDependencyFailure !== 'continue') {
    throw invalid('options.onDependencyFailure', `must be 'fail' or 'continue', got ${describeValue(onDependencyFailure)}`);
  }
  if (dependsOn === undefined) {
    if (onDependencyFailure !== undefined) {
      throw invalid('options.onDependencyFailure', 'needs dependsOn: it is what a failed dependency does to the job');
    }
    return { queue, options: options as JobOptions, existing: [], refs: [], policy: 'fail' };
  }
  if (!Array.isArray(dependsOn) || dependsOn.length === 0 || dependsOn.length > MAX_DEPENDENCIES) {
    throw invalid('options.dependsOn', `must be an array of 1 to ${MAX_DEPENDENCIES} job ids or { ref }, got ${describeValue(dependsOn)}`);
  }
  const existing = new Set<string>();
  const refs = new Set<number>();
  // By index, as the jobs: a hole in the list is refused, not skipped.
  for (let at = 0; at < dependsOn.length; at++) {
    const entry: unknown = dependsOn[at];
    const field = `options.dependsOn[${at}]`;
    if (typeof entry === 'string') {
      if (!isJobId(entry)) throw invalid(field, `must be a job id or { ref }, got ${describeValue(entry)}`);
      if (existing.has(entry)) throw invalid(field, `repeats job ${entry}`);
      existing.add(entry);
      continue;
    }
    const ref = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? (entry as { ref?: unknown }).ref : undefined;
    if (typeof ref !== 'string' || Object.keys(entry as object).length !== 1) {
      throw invalid(field, `must be a job id or { ref } naming a job of this call, got ${describeValue(entry)}`);
    }
    const position = positions.get(ref);
    if (position === undefined) throw invalid(field, `names no job of this call (ref ${JSON.stringify(ref)})`);
    if (position === index) throw invalid(field, 'names the job itself');
    if (refs.has(position)) throw invalid(field, `repeats ref ${JSON.stringify(ref)}`);
    refs.add(position);
  }
  return { queue, options: options as JobOptions, existing: [...existing], refs: [...refs], policy: onDependencyFailure ?? 'fail' };
}

/**
 * The input positions in an order where each job comes after the jobs of the call it depends on (the jobs that
 * depend on none first, in input order). A cycle is refused with the jobs on it.
 */
function dependencyOrder(checked: CheckedJob[], jobs: GraphJob[]): number[] {
  const waiting = checked.map((job) => job.refs.length);
  const dependents: number[][] = checked.map(() => []);
  checked.forEach((job, index) => job.refs.forEach((ref) => dependents[ref].push(index)));
  // First in, first out: ready jobs in input order, then each job as its last dependency is placed.
  const order = checked.map((_, index) => index).filter((index) => waiting[index] === 0);
  for (let next = 0; next < order.length; next++) {
    for (const dependent of dependents[order[next]]) if (--waiting[dependent] === 0) order.push(dependent);
  }
  if (order.length < checked.length) throw new DependencyCycleError(cycleAmong(checked, waiting).map((index) => jobs[index].ref));
  return order;
}

/** One cycle among the jobs still waiting once every job that could be ordered was: followed from any of them. */
function cycleAmong(checked: CheckedJob[], waiting: number[]): number[] {
  // Every job left waits for another job left, so walking to a waiting dependency never ends: it comes back on itself.
  let at = waiting.findIndex((count) => count > 0);
  const seenAt = new Map<number, number>();
  const path: number[] = [];
  while (!seenAt.has(at)) {
    seenAt.set(at, path.length);
    path.push(at);
    at = checked[at].refs.find((ref) => waiting[ref] > 0)!;
  }
  return path.slice(seenAt.get(at));
}
