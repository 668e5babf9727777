import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import { GetJobDependenciesOptions, JobDependencies } from '../interfaces/job-dependencies.interface';
import { JobCounts, JobInfo } from '../interfaces/job-info.interface';
import { CountRow } from '../storage/storage-records';
import {
  CountOptions,
  FailureGroup,
  FailureGroupsOptions,
  GetGroupsOptions,
  GetJobsOptions,
  GroupInfo,
  QueueInfo,
  QueueLimitsInfo,
} from '../interfaces/queue-info.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { assertAdminOptions } from '../utils/assert-options.util';
import { assertGroupFilter } from '../utils/job-group.util';
import { parseJobLogs } from '../utils/job-logs.util';
import { jobNameProblem } from '../utils/job-name.util';
import {
  FAILURE_GROUPS_OPTION_KEYS,
  GET_GROUPS_OPTION_KEYS,
  GET_JOBS_OPTION_KEYS,
  JOBS_BY_KEY_OPTION_KEYS,
  JOB_DEPENDENCIES_OPTION_KEYS,
} from '../utils/option-keys.util';
import { assertQueueName } from '../utils/queue-name.util';
import { describeValue, unstorableTextProblem } from '../utils/validation.util';
import { toJobFlowInfo, toJobInfo } from '../views/to-job-info';
import { toJobRuns } from '../views/to-job-runs';
import { AdminContext } from './admin-context';
import { MAX_PAGE, assertJobId, assertStatus, assertTimeout, countGroup, countName, emptyCounts, jobSortOf } from './admin-arguments';
import { explainJob } from './explain-job';
import { FAILURE_SAMPLE, groupFailures } from './failure-groups';
import { searchText } from './search-text';
import { waitUntilIdle } from './wait-until-idle';

/** Most groups `getFailureGroups` returns. */
const MAX_FAILURE_GROUPS = 100;

/** `QueueAdmin`'s reads of jobs and queues, and its waits; each method is documented on `QueueAdmin`. */
export class JobInspection {
  constructor(private readonly context: AdminContext) {}

  /** See `QueueAdmin.getJob`. */
  async getJob<TData, TResult>(id: string): Promise<JobInfo<TData, TResult> | null> {
    if (typeof id !== 'string') return null;
    const storage = await this.context.storage();
    const [record, flow] = await Promise.all([storage.getJob(id), storage.getFlow(id)]);
    if (!record) return null;
    const info = toJobInfo<TData, TResult>(record);
    // Removed between the two reads: the job itself is still shown.
    if (flow) info.flow = toJobFlowInfo(record, flow);
    info.runs = toJobRuns(record, info.error);
    return info;
  }

  /** See `QueueAdmin.explain`. */
  async explain(id: string): Promise<JobExplanation> {
    const now = Date.now();
    const facts = await (await this.context.storage()).explainFacts(assertJobId(id), now);
    if (!facts) throw new JobNotFoundError(id);
    const { runtime } = this.context;
    const queue = facts.job.queue;
    const processor = runtime.getProcessor(queue);
    return explainJob(
      facts,
      {
        processesHere: !!processor && !!runtime.processing,
        globalConcurrency: processor?.settings.globalConcurrency ?? runtime.options.queueLimits[queue]?.globalConcurrency,
        groupConcurrency: processor?.settings.groupConcurrency ?? runtime.options.queueLimits[queue]?.groupConcurrency,
        batch: processor?.settings.batch,
      },
      now,
    );
  }

  /** See `QueueAdmin.getJobLogs`. */
  async getJobLogs(id: string): Promise<string[] | null> {
    if (typeof id !== 'string') return null;
    const stored = await (await this.context.storage()).getJobLogs(id);
    return stored === undefined ? null : parseJobLogs(stored);
  }

  /** See `QueueAdmin.getJobDependencies`. */
  async getJobDependencies(id: string, options: GetJobDependenciesOptions): Promise<JobDependencies | null> {
    assertAdminOptions('getJobDependencies', options, JOB_DEPENDENCIES_OPTION_KEYS);
    const limit = options.limit ?? 50;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError(
        'getJobDependencies',
        'limit',
        `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`,
      );
    }
    if (typeof id !== 'string') return null;
    const storage = await this.context.storage();
    const links = await storage.jobLinksOf(id, limit);
    // A job without links and no job at all read the same: only then is the job itself looked for.
    if (links.dependencyCount + links.dependentCount === 0 && (await storage.getJob(id)) === null) return null;
    return links;
  }

  /** See `QueueAdmin.getCounts`. */
  async getCounts(queue: string | undefined, options: CountOptions): Promise<JobCounts> {
    if (queue !== undefined) assertQueueName(queue);
    const name = countName(queue, options);
    const counts = emptyCounts();
    const group = countGroup(queue, options);
    const storage = await this.context.storage();
    const rows = group === undefined ? await storage.getCounts(queue, name) : await storage.groupCounts(queue!, group, name);
    addCountRows(counts, rows);
    return counts;
  }

  /** See `QueueAdmin.getGroups`. */
  async getGroups(queue: string, options: GetGroupsOptions): Promise<GroupInfo[]> {
    assertQueueName(queue);
    assertAdminOptions('getGroups', options, GET_GROUPS_OPTION_KEYS);
    const { limit = 10 } = options;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError('getGroups', 'limit', `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`);
    }
    return (await this.context.storage()).busiestGroups(queue, limit);
  }

  /** See `QueueAdmin.getFailureGroups`. */
  async getFailureGroups(queue: string, options: FailureGroupsOptions): Promise<FailureGroup[]> {
    assertQueueName(queue);
    if (typeof options !== 'object' || options === null || Array.isArray(options)) {
      throw new InvalidArgumentError('getFailureGroups', 'options', `must be an object such as { limit }, got ${describeValue(options)}`);
    }
    assertAdminOptions('getFailureGroups', options, FAILURE_GROUPS_OPTION_KEYS);
    const { limit = 10 } = options;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_FAILURE_GROUPS)) {
      throw new InvalidArgumentError(
        'getFailureGroups',
        'limit',
        `must be an integer from 1 to ${MAX_FAILURE_GROUPS}, got ${describeValue(limit)}`,
      );
    }
    return groupFailures(await (await this.context.storage()).recentFailures(queue, FAILURE_SAMPLE), limit);
  }

  /** See `QueueAdmin.getJobs`. */
  async getJobs<TData, TResult>(queue: string, options: GetJobsOptions): Promise<JobInfo<TData, TResult>[]> {
    assertQueueName(queue);
    assertAdminOptions('getJobs', options, GET_JOBS_OPTION_KEYS);
    const { status, name, group, search, limit = 50, offset = 0 } = options;
    const sort = jobSortOf(options);
    if (group !== undefined) assertGroupFilter('getJobs', group);
    if (status !== undefined) assertStatus('getJobs', status);
    if (name !== undefined) {
      const problem = jobNameProblem(name);
      if (problem) throw new InvalidArgumentError('getJobs', 'name', problem);
    }
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError('getJobs', 'limit', `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`);
    }
    if (!(Number.isSafeInteger(offset) && offset >= 0))
      throw new InvalidArgumentError('getJobs', 'offset', `must be an integer >= 0, got ${describeValue(offset)}`);
    const storage = await this.context.storage();
    // Every filter combines with every other: a search reads its bounded range whatever the filters, a listing
    // without one walks the group's, the status's or the queue's index.
    const records = await storage.listJobs(queue, { status, name, group, search: searchText(search), sort, limit, offset });
    return records.map((record) => toJobInfo<TData, TResult>(record));
  }

  /** See `QueueAdmin.getJobsByKey`. */
  async getJobsByKey<TData, TResult>(queue: string, key: string, options: { limit?: number }): Promise<JobInfo<TData, TResult>[]> {
    assertQueueName(queue);
    if (typeof key !== 'string' || key.length === 0) {
      throw new InvalidArgumentError('getJobsByKey', 'key', `must be a non-empty string, got ${describeValue(key)}`);
    }
    // `add` refuses such a key, so no job holds it; and PostgreSQL would refuse a NUL as a parameter with a driver error.
    const problem = unstorableTextProblem(key);
    if (problem) throw new InvalidArgumentError('getJobsByKey', 'key', problem);
    assertAdminOptions('getJobsByKey', options, JOBS_BY_KEY_OPTION_KEYS);
    const limit = options.limit ?? 50;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError('getJobsByKey', 'limit', `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`);
    }
    const records = await (await this.context.storage()).jobsByKey(queue, key, limit);
    return records.map((record) => toJobInfo<TData, TResult>(record));
  }

  /** See `QueueAdmin.getQueueLimits`. */
  async getQueueLimits(queue: string): Promise<QueueLimitsInfo> {
    assertQueueName(queue);
    const now = Date.now();
    const stored = await (await this.context.storage()).storedLimits(queue, now);
    const { runtime } = this.context;
    const processor = runtime.getProcessor(queue);
    const declared = runtime.options.queueLimits[queue];
    const rate = (max: number | null | undefined, duration: number | null | undefined) =>
      max === null || max === undefined || duration === null || duration === undefined ? null : { max, duration };
    return {
      concurrency: processor?.settings.concurrency ?? null,
      limiter: rate(stored?.max, stored?.duration),
      groupLimiter: rate(stored?.groupMax, stored?.groupDuration),
      globalConcurrency: processor?.settings.globalConcurrency ?? declared?.globalConcurrency ?? null,
      groupConcurrency: processor?.settings.groupConcurrency ?? declared?.groupConcurrency ?? null,
      limitedUntil: stored && stored.limitedUntil > 0 ? new Date(stored.limitedUntil) : null,
    };
  }

  /** See `QueueAdmin.listQueues`. */
  async listQueues(): Promise<QueueInfo[]> {
    const { runtime } = this.context;
    const storage = await this.context.storage();
    const [rows, paused, announced] = await Promise.all([
      storage.getCounts(),
      storage.getPausedQueues(),
      storage.processedQueues(Date.now()),
    ]);
    const counts = new Map<string, JobCounts>();
    const countsOf = (queue: string) => counts.get(queue) ?? counts.set(queue, emptyCounts()).get(queue)!;
    const byQueue = new Map<string, CountRow[]>();
    for (const row of rows) byQueue.set(row.queue, [...(byQueue.get(row.queue) ?? []), row]);
    for (const [queue, queueRows] of byQueue) addCountRows(countsOf(queue), queueRows);
    for (const queue of paused) countsOf(queue);
    for (const processor of runtime.processors()) countsOf(processor.queue);
    for (const queue of announced) countsOf(queue);
    const pausedSet = new Set(paused);
    const processed = new Set(announced);
    // This process's own queues count from its start, before its first announcement lands.
    if (runtime.processing) for (const processor of runtime.processors()) processed.add(processor.queue);
    return [...counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, queueCounts]) => {
        const processor = runtime.getProcessor(name);
        return {
          name,
          counts: queueCounts,
          paused: pausedSet.has(name),
          hasProcessor: !!processor,
          processed: processed.has(name),
          concurrency: processor?.settings.concurrency ?? null,
        };
      });
  }

  /** See `QueueAdmin.hasQueue`. */
  hasQueue(queue: string): Promise<boolean> {
    assertQueueName(queue);
    return this.context.hasQueue(queue);
  }

  /** See `QueueAdmin.waitUntilFinished`. */
  async waitUntilFinished<TData, TResult>(id: string, options: WaitOptions): Promise<JobInfo<TData, TResult>> {
    const rowId = assertJobId(id);
    const timeout = assertTimeout('waitUntilFinished', options);
    await this.context.storage();
    return toJobInfo<TData, TResult>(await this.context.runtime.finishWatcher.wait(rowId, timeout));
  }

  /** See `QueueAdmin.waitUntilIdle`. */
  async waitUntilIdle(queue: string | undefined, options: WaitOptions): Promise<void> {
    if (queue !== undefined) assertQueueName(queue);
    const timeout = assertTimeout('waitUntilIdle', options);
    const { runtime } = this.context;
    await waitUntilIdle(await this.context.storage(), runtime.events, {
      queue,
      timeout,
      interval: Math.min(runtime.options.pollInterval, 50),
    });
  }
}

/** Adds a queue's count rows to `counts`: the jobs claimed ahead are counted apart from those a handler has. */
function addCountRows(counts: JobCounts, rows: readonly CountRow[]): void {
  for (const row of rows) counts[row.status] += row.count;
  counts.running -= counts.claimed;
}
