import { existsSync } from 'node:fs';
import { Injectable, Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { InvalidJobStateError } from '../errors/invalid-job-state.error';
import { JobKeyConflictError } from '../errors/job-key-conflict.error';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { JobWaitingForChildrenError } from '../errors/job-waiting-for-children.error';
import { QueueNotFoundError } from '../errors/queue-not-found.error';
import { QueueRuntime } from '../runtime/queue-runtime';
import { JOB_STATUSES, JobCounts, JobInfo, JobStatus } from '../interfaces/job-info.interface';
import { MetricsSnapshot } from '../interfaces/metrics.interface';
import {
  CleanOptions,
  CountOptions,
  FailureGroup,
  FailureGroupsOptions,
  GetGroupsOptions,
  GetJobsOptions,
  GroupInfo,
  JOB_ORDER_FIELDS,
  JobOrderBy,
  QueueInfo,
  RetryAllOptions,
  RetryAllReport,
} from '../interfaces/queue-info.interface';
import { computeMetrics } from '../metrics/compute-metrics';
import { exportPrometheus } from './export-prometheus';
import {
  ControlStorage,
  ExplainStorage,
  FlowStorage,
  GroupStorage,
  HousekeepingStorage,
  InspectionStorage,
  OperatorStorage,
  ScheduleRecord,
  ScheduleStorage,
  StorageLifecycle,
} from '../storage/queue-storage.interface';
import { assertGroupFilter } from '../utils/job-group.util';
import { assertQueueName } from '../utils/queue-name.util';
import { closestName } from '../utils/closest-name.util';
import { jobNameProblem } from '../utils/job-name.util';
import { parseJobLogs } from '../utils/job-logs.util';
import { guardStorage } from '../storage/guard-storage';
import { LIMITS, MAX_TIMER_MS, describeValue, isDurationMs, isTimerDuration } from '../utils/validation.util';
import { CascadeOptions } from '../interfaces/flow-job.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { waitUntilIdle } from './wait-until-idle';
import { toJobFlowInfo, toJobInfo } from './to-job-info';
import { toJobRuns } from './to-job-runs';
import { isWaitingRunAt } from '../storage/shared/flow-wait';
import { intendedNextRunAt, isPausedRunAt } from '../storage/shared/schedule-pause';
import { nextOccurrenceAfter } from '../scheduler/schedule-definition';
import { scheduleRunKey } from '../scheduler/schedule-run-key';
import { occurrenceJob } from '../scheduler/occurrence-job';
import { ScheduleNotFoundError } from '../errors/schedule-not-found.error';
import { ProcessesInfo } from '../interfaces/process-info.interface';
import { toProcesses, toWorkers } from './to-processes';
import { ENDED_PROCESS_KEPT_MS } from '../housekeeping/processor-announcer';

import { assertAdminOptions } from './assert-options';
import { searchText } from './search-text';
import { explainJob } from './explain-job';
import { FAILURE_SAMPLE, groupFailures } from './failure-groups';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import {
  CASCADE_OPTION_KEYS,
  CLEAN_OPTION_KEYS,
  COUNT_OPTION_KEYS,
  FAILURE_GROUPS_OPTION_KEYS,
  GET_GROUPS_OPTION_KEYS,
  GET_JOBS_OPTION_KEYS,
  JOBS_BY_KEY_OPTION_KEYS,
  METRICS_OPTION_KEYS,
  RETRY_ALL_OPTION_KEYS,
  WAIT_OPTION_KEYS,
} from '../utils/option-keys.util';
import { DeadLetterQueueInfo, RedriveOptions, assertRedriveArguments, redriveDeadLetters } from './redrive';
import type { DeadLetterStorage } from '../storage/queue-storage.interface';
import type { JobSort } from '../storage/shared/job-sort';

/** What `QueueAdmin` uses: inspection, control and flows, which queues are processed, and backups. */
type AdminStorage = InspectionStorage &
  GroupStorage &
  ExplainStorage &
  ControlStorage &
  FlowStorage &
  Pick<HousekeepingStorage, 'processedQueues'> &
  Pick<StorageLifecycle, 'backup'> &
  OperatorStorage &
  DeadLetterStorage &
  Pick<ScheduleStorage, 'listSchedules' | 'enqueueScheduleRun'>;

const MAX_PAGE = 1000;
/** Most groups `getFailureGroups` returns. */
const MAX_FAILURE_GROUPS = 100;
/** Most finished jobs a metrics snapshot reads; beyond that it uses the newest and says so. */
const METRICS_SAMPLE = 100_000;
/** Tries of `retry(id)` when the key's holder finishes between the statement and the look-up that explains it. */
const RETRY_ROUNDS = 3;

/** Inspects and controls jobs and queues, across every process sharing the database. Inject it anywhere. */
@Injectable()
export class QueueAdmin {
  private readonly logger = new Logger('JobQueue');

  constructor(private readonly runtime: QueueRuntime) {}

  /**
   * One job with its whole state, including its place in a flow (`flow`) and its run history (`runs`), or `null`
   * when no job has that id.
   */
  async getJob<TData = unknown, TResult = unknown>(id: string): Promise<JobInfo<TData, TResult> | null> {
    if (typeof id !== 'string') return null;
    const storage = await this.storage();
    const [record, flow] = await Promise.all([storage.getJob(id), storage.getFlow(id)]);
    if (!record) return null;
    const info = toJobInfo<TData, TResult>(record);
    // Removed between the two reads: the job itself is still shown.
    if (flow) info.flow = toJobFlowInfo(record, flow);
    info.runs = toJobRuns(record, info.error);
    return info;
  }

  /**
   * Why a job is where it is: running (owner, lease), or what holds a pending one back (its children, a pause, its
   * delay or backoff, no live processor, a rate limit, the global or the group concurrency), or `due` (waiting for a free slot), or
   * finished. One statement; the limits only a processor declares (global and group concurrency) are this process's.
   * @throws JobNotFoundError for an id that names no job.
   */
  async explain(id: string): Promise<JobExplanation> {
    const now = Date.now();
    const facts = await (await this.storage()).explainFacts(assertJobId(id), now);
    if (!facts) throw new JobNotFoundError(id);
    const queue = facts.job.queue;
    const processor = this.runtime.getProcessor(queue);
    return explainJob(
      facts,
      {
        processesHere: !!processor && !!this.runtime.processing,
        globalConcurrency: processor?.settings.globalConcurrency ?? this.runtime.options.queueLimits[queue]?.globalConcurrency,
        groupConcurrency: processor?.settings.groupConcurrency ?? this.runtime.options.queueLimits[queue]?.groupConcurrency,
      },
      now,
    );
  }

  /**
   * The lines a job's handlers stored with `job.log()`, oldest first (at most the newest 100), or `null` when no job
   * has that id.
   */
  async getJobLogs(id: string): Promise<string[] | null> {
    if (typeof id !== 'string') return null;
    const stored = await (await this.storage()).getJobLogs(id);
    return stored === undefined ? null : parseJobLogs(stored);
  }

  /**
   * Number of jobs per status, of one queue or of all queues together, or of one job name within a queue
   * (`getCounts(queue, { name })`), or of one group (`getCounts(queue, { group })`), or of one name within a group
   * (both). Every status is present (0 when none). A name is a filter on the rows of the queue's index walks, not an
   * index of its own: a count by name reads each job of the queue (of the group, with a group). A group's count
   * reads the index of grouped jobs only.
   * @throws InvalidQueueNameError for a malformed queue name; InvalidArgumentError for options that are not an
   * object, an unknown option, a malformed name or group, a name or group without a queue.
   */
  async getCounts(queue?: string, options: CountOptions = {}): Promise<JobCounts> {
    if (queue !== undefined) assertQueueName(queue);
    const name = countName(queue, options);
    const counts = emptyCounts();
    const group = countGroup(queue, options);
    const storage = await this.storage();
    const rows = group === undefined ? await storage.getCounts(queue, name) : await storage.groupCounts(queue!, group, name);
    for (const row of rows) counts[row.status] += row.count;
    return counts;
  }

  /**
   * The queue's groups (`JobOptions.group`) with the most running jobs, most first, each with its running and pending
   * counts (pending counted up to 10,000: a larger backlog reads as 10,000). At most `limit` (1 to 1000, default 10).
   * @throws InvalidQueueNameError, InvalidArgumentError (options not an object, an unknown option, a bad limit).
   */
  async getGroups(queue: string, options: GetGroupsOptions = {}): Promise<GroupInfo[]> {
    assertQueueName(queue);
    assertAdminOptions('getGroups', options, GET_GROUPS_OPTION_KEYS);
    const { limit = 10 } = options;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError('getGroups', 'limit', `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`);
    }
    return (await this.storage()).busiestGroups(queue, limit);
  }

  /**
   * The queue's failed jobs grouped by error (name and message), most failures first: each group's count, when the
   * newest of them failed and its id. Read from the newest 1,000 failed jobs (by finish time, through the index of
   * finished jobs, the head of each error only), so the counts are of recent failures and the cost is bounded
   * whatever the history. At most `limit` groups (1 to 100, default 10).
   * @throws InvalidQueueNameError, InvalidArgumentError (options not an object, an unknown option, a bad limit).
   */
  async getFailureGroups(queue: string, options: FailureGroupsOptions = {}): Promise<FailureGroup[]> {
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
    return groupFailures(await (await this.storage()).recentFailures(queue, FAILURE_SAMPLE), limit);
  }

  /**
   * Jobs of a queue, newest first (or in the order `orderBy` and `order` ask), optionally of one status, name or
   * group and holding a text (`search`), in any combination, a page at a time.
   * @throws InvalidQueueNameError, InvalidArgumentError (an unknown `orderBy` names the closest field).
   */
  async getJobs<TData = unknown, TResult = unknown>(queue: string, options: GetJobsOptions = {}): Promise<JobInfo<TData, TResult>[]> {
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
    const storage = await this.storage();
    // Every filter combines with every other: a search reads its bounded range whatever the filters, a listing
    // without one walks the group's, the status's or the queue's index.
    const records = await storage.listJobs(queue, { status, name, group, search: searchText(search), sort, limit, offset });
    return records.map((record) => toJobInfo<TData, TResult>(record));
  }

  /**
   * Jobs of a queue carrying key `key` (a unique key, or a debounced job's), in any status, newest first (at most `limit`, 1 to 1000, default
   * 50): the live holder of the key and the finished jobs that held it before. Finished jobs' keys are not
   * indexed, so this reads the queue's rows: meant for an operator's look-up, not a hot path.
   * @throws InvalidQueueNameError, InvalidArgumentError.
   */
  async getJobsByKey<TData = unknown, TResult = unknown>(
    queue: string,
    key: string,
    options: { limit?: number } = {},
  ): Promise<JobInfo<TData, TResult>[]> {
    assertQueueName(queue);
    if (typeof key !== 'string' || key.length === 0) {
      throw new InvalidArgumentError('getJobsByKey', 'key', `must be a non-empty string, got ${describeValue(key)}`);
    }
    assertAdminOptions('getJobsByKey', options, JOBS_BY_KEY_OPTION_KEYS);
    const limit = options.limit ?? 50;
    if (!(Number.isSafeInteger(limit) && limit >= 1 && limit <= MAX_PAGE)) {
      throw new InvalidArgumentError('getJobsByKey', 'limit', `must be an integer from 1 to ${MAX_PAGE}, got ${describeValue(limit)}`);
    }
    const records = await (await this.storage()).jobsByKey(queue, key, limit);
    return records.map((record) => toJobInfo<TData, TResult>(record));
  }

  /** Every queue known to the database or to this application, with its counts, paused state and processor. */
  async listQueues(): Promise<QueueInfo[]> {
    const storage = await this.storage();
    const [rows, paused, announced] = await Promise.all([
      storage.getCounts(),
      storage.getPausedQueues(),
      storage.processedQueues(Date.now()),
    ]);
    const counts = new Map<string, JobCounts>();
    const countsOf = (queue: string) => counts.get(queue) ?? counts.set(queue, emptyCounts()).get(queue)!;
    for (const row of rows) countsOf(row.queue)[row.status] += row.count;
    for (const queue of paused) countsOf(queue);
    for (const processor of this.runtime.processors()) countsOf(processor.queue);
    for (const queue of announced) countsOf(queue);
    const pausedSet = new Set(paused);
    const processed = new Set(announced);
    // This process's own queues count from its start, before its first announcement lands.
    if (this.runtime.processing) for (const processor of this.runtime.processors()) processed.add(processor.queue);
    return [...counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, queueCounts]) => {
        const processor = this.runtime.getProcessor(name);
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

  /**
   * Whether the queue is known: this application declares it (a processor, a `registerQueue` handle), or the
   * database has a job of it, a row of its state (paused, limits, a processor's announcement) or a schedule, or a
   * processor names it as its dead-letter queue (`deadLetter`), even before its first dead letter. The
   * control calls (`pause`, `resume`, `retryAll`, `clean`) refuse any other queue with `QueueNotFoundError`.
   * @throws InvalidQueueNameError for a malformed queue name.
   */
  async hasQueue(queue: string): Promise<boolean> {
    assertQueueName(queue);
    return this.runtime.declaresQueue(queue) || this.storedQueue(await this.storage(), queue);
  }

  /**
   * Stops claims of a queue in every process sharing the database; running jobs finish. A queue may be paused before
   * its first job once something declares it (a processor or `registerQueue` in this app, a processor elsewhere).
   * @throws InvalidQueueNameError, QueueNotFoundError (no such queue: see `hasQueue`; nothing is written).
   */
  async pause(queue: string): Promise<void> {
    const storage = await this.knownQueue('pause', queue);
    await storage.setPaused(queue, true, Date.now());
  }

  /**
   * Lets a paused queue be claimed again.
   * @throws InvalidQueueNameError, QueueNotFoundError (no such queue: nothing is written).
   */
  async resume(queue: string): Promise<void> {
    const storage = await this.knownQueue('resume', queue);
    await storage.setPaused(queue, false, Date.now());
    this.runtime.processing?.wake();
  }

  /**
   * Cancels a pending or running job: a pending one never runs; a running one has its `signal` aborted (at
   * once in this process, at its next heartbeat elsewhere) and its outcome is discarded. Ends `cancelled`.
   * A cancelled child of a flow counts as failed for its parent. With `{ cascade: true }`, every live descendant
   * of the job (children, their children...) is cancelled too.
   * @throws JobNotFoundError, InvalidJobStateError (the job already finished).
   */
  async cancel(id: string, options: CascadeOptions = {}): Promise<void> {
    const cascade = cascadeOf('cancel', options);
    const storage = await this.storage();
    const now = Date.now();
    const before = await storage.cancel(assertJobId(id), now);
    if (before === null) throw new JobNotFoundError(id);
    if (before !== 'pending' && before !== 'running') throw new InvalidJobStateError(id, before, 'cancel', ['pending', 'running']);
    if (before === 'running') this.runtime.processing?.cancelLocally(id);
    if (!cascade) return;
    // A second statement: a crash between the two leaves descendants that simply run (their parent is cancelled).
    for (const running of await storage.cancelDescendants(id, now)) this.runtime.processing?.cancelLocally(running.id);
  }

  /**
   * Runs a failed or cancelled job again, with a fresh set of attempts. A flow parent with children still pending or
   * running (a cancel without cascade leaves them so) waits for them again, and runs after the last one.
   * @throws JobNotFoundError, InvalidJobStateError, JobKeyConflictError (a live job of the queue holds its key, or,
   * for a debounced job that never started, another unstarted debounced job of its key: retry it once that job has
   * finished).
   */
  async retry(id: string): Promise<void> {
    const storage = await this.storage();
    const rowId = assertJobId(id);
    for (let round = 1; ; round++) {
      const changed = await storage.retryFinished({ ids: [rowId] }, Date.now());
      if (changed.length === 1) {
        this.runtime.processing?.wake();
        return;
      }
      const record = await storage.getJob(id);
      if (!record) throw new JobNotFoundError(id);
      if (record.status !== 'failed' && record.status !== 'cancelled') {
        throw new InvalidJobStateError(id, record.status, 'retry', ['failed', 'cancelled']);
      }
      // Still finished: only a live job holding its key keeps it so (its unique key, or the debounce key of one that
      // never started). That job may have finished since: try again.
      const holder =
        record.key === null
          ? undefined
          : ((await storage.debounceKeyHolder(id)) ?? (await storage.findLiveByKeys(record.queue, [record.key]))[0]);
      if (holder && holder.id !== id) {
        throw new JobKeyConflictError(
          record.queue,
          record.key as string,
          `job ${id} cannot be retried while job ${holder.id} (${holder.status}) holds this key; it stays ${record.status}`,
          id,
          holder.id,
        );
      }
      if (round >= RETRY_ROUNDS) throw new InvalidJobStateError(id, record.status, 'retry', ['failed', 'cancelled']);
    }
  }

  /**
   * Runs every failed job of a queue again; resolves with how many, or with `{ retried, skipped }` when asked
   * for a report. A failed job whose unique key a live job of the queue holds is skipped (and logged), and so
   * is every failed job sharing a key but the newest: the others are retried all the same. A flow parent among them
   * waits again for its children still pending or running, like with `retry`.
   * @throws InvalidQueueNameError, InvalidArgumentError, QueueNotFoundError (no such queue).
   */
  async retryAll(queue: string): Promise<number>;
  async retryAll(queue: string, options: RetryAllOptions): Promise<RetryAllReport>;
  async retryAll(queue: string, options?: RetryAllOptions): Promise<number | RetryAllReport> {
    assertQueueName(queue);
    assertAdminOptions('retryAll', options, RETRY_ALL_OPTION_KEYS);
    if (options !== undefined && !(typeof options === 'object' && options !== null && options.report === true)) {
      throw new InvalidArgumentError('retryAll', 'options', 'must be { report: true } or left out');
    }
    const storage = await this.knownQueue('retryAll', queue);
    const now = Date.now();
    const retried = await storage.retryFinished({ queue }, now);
    if (retried.length > 0) this.runtime.processing?.wake();
    // Jobs that failed after `now` were not candidates: they are neither retried nor skipped.
    const skipped = (await storage.keyBlockedFailed(queue, now)).map(({ id, key, holderId }) => ({ id, key, heldBy: holderId }));
    if (skipped.length > 0) {
      const shown = skipped.slice(0, 10).map((job) => `${job.id} (key ${JSON.stringify(job.key)} held by job ${job.heldBy})`);
      this.logger.warn(
        `retryAll('${queue}') skipped ${skipped.length} failed job(s) whose unique key a live job holds: ` +
          `${shown.join(', ')}${skipped.length > shown.length ? ', …' : ''}`,
      );
    }
    return options ? { retried, skipped } : retried.length;
  }

  /**
   * Sends the dead letters of `deadLetterQueue` (pending or failed; not one a processor of that queue is running)
   * back into the queue each came from, as fresh jobs (attempts 0, due now, same data, name and options), and removes
   * them from the dead-letter queue, atomically; resolves with how many moved. `limit`: the oldest that many only.
   * @throws InvalidQueueNameError, InvalidArgumentError, QueueNotFoundError (no such queue: a mistyped name would
   * otherwise answer "0 moved"; nothing is written).
   */
  async redrive(deadLetterQueue: string, options?: RedriveOptions): Promise<number> {
    assertRedriveArguments(deadLetterQueue, options);
    const storage = await this.knownQueue('redrive', deadLetterQueue);
    const moved = await redriveDeadLetters(storage, deadLetterQueue, options, Date.now);
    if (moved > 0) this.runtime.processing?.wake();
    return moved;
  }

  /** Every queue some processor names as its `deadLetter`, with the queues naming it and its dead letters waiting. */
  async listDeadLetterQueues(): Promise<DeadLetterQueueInfo[]> {
    return (await this.storage()).deadLetterQueues();
  }

  /**
   * Deletes a job that is not running. Removing a live child of a flow releases its parent from waiting for it. With
   * `{ cascade: true }`, every descendant is deleted too, in one atomic decision: the whole tree, or nothing while one
   * of its jobs runs (no worker of any process can claim a job of it in between).
   * @throws JobNotFoundError, InvalidJobStateError (running: cancel it first; with `cascade`, it names the running job).
   */
  async remove(id: string, options: CascadeOptions = {}): Promise<void> {
    const cascade = cascadeOf('remove', options);
    const storage = await this.storage();
    const removable: JobStatus[] = ['pending', 'completed', 'failed', 'cancelled'];
    if (cascade) {
      const outcome = await storage.removeTree(assertJobId(id));
      if (outcome === null) throw new JobNotFoundError(id);
      if ('running' in outcome) throw new InvalidJobStateError(outcome.running, 'running', 'remove', removable);
      // Waits for any job of the tree in this process reject now, not at their next poll.
      this.runtime.finishWatcher.lookAgain();
      return;
    }
    const before = await storage.remove(assertJobId(id), Date.now());
    if (before === null) throw new JobNotFoundError(id);
    if (before === 'running') throw new InvalidJobStateError(id, before, 'remove', removable);
    // A wait for it in this process rejects now, not at its next poll.
    this.runtime.finishWatcher.lookAgain([id]);
  }

  /**
   * Runs a delayed pending job now (BullMQ's `promote`): it becomes due at once and is claimed like any due job, its
   * priority and attempts unchanged. Resolves true when it moved, false when it was already due.
   * @throws JobNotFoundError, InvalidJobStateError (not pending), JobWaitingForChildrenError (a flow parent whose
   * children have not all ended: it runs after them).
   */
  async promote(id: string): Promise<boolean> {
    const outcome = await (await this.storage()).promote(assertJobId(id), Date.now());
    if (outcome === null) throw new JobNotFoundError(id);
    if (outcome.status !== 'pending') throw new InvalidJobStateError(id, outcome.status, 'promote', ['pending']);
    if (isWaitingRunAt(outcome.runAt)) throw new JobWaitingForChildrenError(id);
    if (outcome.promoted) this.runtime.processing?.wake();
    return outcome.promoted;
  }

  /**
   * Stops a recurring job from enqueuing occurrences, in every process, until `resumeSchedule`; it keeps its next run
   * time, and stays paused when the app declares it again (even changed). Idempotent.
   * @throws InvalidQueueNameError, ScheduleNotFoundError (nothing written).
   */
  async pauseSchedule(queue: string, name: string): Promise<void> {
    assertQueueName(queue);
    if (!(await (await this.storage()).pauseSchedule(queue, String(name), Date.now())))
      throw new ScheduleNotFoundError(queue, String(name));
  }

  /**
   * Resumes a paused recurring job at its first occurrence after now: occurrences missed while paused are not run.
   * Idempotent (a schedule that is not paused is left as it is).
   * @throws InvalidQueueNameError, ScheduleNotFoundError.
   */
  async resumeSchedule(queue: string, name: string): Promise<void> {
    const { storage, schedule } = await this.schedule(queue, name);
    if (!isPausedRunAt(schedule.nextRunAt)) return;
    const now = Date.now();
    const next = nextOccurrenceAfter({ ...schedule, nextRunAt: intendedNextRunAt(schedule.nextRunAt) }, now);
    await storage.resumeSchedule(queue, schedule.name, next, now);
  }

  /**
   * Enqueues one run of a recurring job now, as the scheduler would (its data and job options), paused or not; its
   * next run is unchanged. Each call makes its own run, in one statement, and resolves with that run's job id: calls
   * made at once each make one, and none is taken for a duplicate of another or of the scheduled occurrence.
   * @throws InvalidQueueNameError, ScheduleNotFoundError (also when the schedule is removed during the call).
   */
  async runScheduleNow(queue: string, name: string): Promise<string> {
    const defaults = (of: string) => this.runtime.getProcessor(of)?.settings.maxAttempts ?? this.runtime.options.maxAttempts;
    for (;;) {
      const { storage, schedule } = await this.schedule(queue, name);
      const now = Date.now();
      const job = occurrenceJob(schedule, now, defaults);
      const id = await storage.enqueueScheduleRun(queue, schedule.name, scheduleRunKey(schedule.name, now), job, now);
      if (id !== null) {
        this.runtime.processing?.wake();
        return id;
      }
      // No row: the schedule was removed (the next read says so), or another run drew the same key (retried).
    }
  }

  /**
   * The newest job a recurring job enqueued (its last run, whatever its status; retention may have removed older
   * ones), or null.
   * @throws InvalidQueueNameError.
   */
  async getLastScheduleRun<TData = unknown, TResult = unknown>(queue: string, name: string): Promise<JobInfo<TData, TResult> | null> {
    assertQueueName(queue);
    const record = await (await this.storage()).lastScheduleRun(queue, String(name));
    return record ? toJobInfo<TData, TResult>(record) : null;
  }

  /**
   * Which processes run which queues: every processing process that announced itself (idle ones too; stopped and
   * lost ones for an hour) with its processors and running jobs, this application's processors, every worker id
   * seen running jobs, and the queues' live processor announcements.
   */
  async listProcesses(): Promise<ProcessesInfo> {
    const storage = await this.storage();
    const now = Date.now();
    const [rows, activity, announced] = await Promise.all([
      storage.processRows(now - ENDED_PROCESS_KEPT_MS),
      storage.runningByWorker(),
      storage.processorAnnouncements(now),
    ]);
    return {
      self: {
        workerId: this.runtime.options.workerId,
        processors: this.runtime.processors().map((p) => ({ queue: p.queue, concurrency: p.settings.concurrency })),
      },
      processes: toProcesses(rows, activity, now),
      workers: toWorkers(activity),
      announcements: announced.map((row) => ({ queue: row.queue, until: new Date(row.until) })),
    };
  }

  /**
   * Deletes a queue's jobs of some statuses that finished (pending: were created) at least `olderThan` ms ago.
   * Returns how many. @throws InvalidQueueNameError, InvalidArgumentError, QueueNotFoundError (no such queue).
   */
  async clean(queue: string, options: CleanOptions): Promise<number> {
    assertQueueName(queue);
    if (typeof options !== 'object' || options === null)
      throw new InvalidArgumentError('clean', 'options', 'must be { status, olderThan? }');
    assertAdminOptions('clean', options, CLEAN_OPTION_KEYS);
    const statuses = Array.isArray(options.status) ? options.status : [options.status];
    if (statuses.length === 0) throw new InvalidArgumentError('clean', 'status', 'must name at least one status');
    for (const status of statuses) {
      assertStatus('clean', status);
      if (status === 'running') throw new InvalidArgumentError('clean', 'status', 'cannot be running: cancel running jobs first');
    }
    const olderThan = options.olderThan ?? 0;
    if (!isDurationMs(olderThan)) {
      const reason = `must be a number of ms from 0 to ${LIMITS.durationMs} (100 years), got ${describeValue(olderThan)}`;
      throw new InvalidArgumentError('clean', 'olderThan', reason);
    }
    const storage = await this.knownQueue('clean', queue);
    // "Older than 0 ms" includes a job that finished this very millisecond.
    const removed = await storage.clean(queue, statuses, Date.now() - olderThan + 1);
    // Waits in this process for jobs it deleted reject now, not at their next poll.
    if (removed > 0) this.runtime.finishWatcher.lookAgain();
    return removed;
  }

  /**
   * Recent activity per queue from the jobs table: completions and failures per minute, and wait and run
   * time percentiles of the jobs finished in the last `windowMinutes` (1 to 1440, default 15). Jobs removed
   * by retention are not counted.
   */
  async getMetrics(options: { windowMinutes?: number } = {}): Promise<MetricsSnapshot> {
    assertAdminOptions('getMetrics', options, METRICS_OPTION_KEYS);
    const windowMinutes = options.windowMinutes ?? 15;
    if (!(Number.isSafeInteger(windowMinutes) && windowMinutes >= 1 && windowMinutes <= 1440)) {
      throw new InvalidArgumentError(
        'getMetrics',
        'windowMinutes',
        `must be an integer from 1 to 1440, got ${describeValue(windowMinutes)}`,
      );
    }
    const now = Date.now();
    const timings = await (await this.storage()).finishedSince(now - windowMinutes * 60_000, METRICS_SAMPLE);
    return computeMetrics(timings, now, windowMinutes, timings.length === METRICS_SAMPLE);
  }

  /**
   * The queues' metrics in Prometheus' text exposition format (serve it as `text/plain; version=0.0.4`): job counts by
   * queue and status and paused state (gauges, of the database now), and of the jobs finished in the last
   * `windowMinutes` (1 to 1440, default 15; database-wide, whichever process ran them): completions and failures
   * (gauges over that sliding window, not counters since boot) and wait and run time summaries in seconds.
   * @throws InvalidArgumentError for a bad window or an unknown option.
   */
  async exportPrometheusMetrics(options: { windowMinutes?: number } = {}): Promise<string> {
    assertAdminOptions('exportPrometheusMetrics', options, METRICS_OPTION_KEYS);
    return exportPrometheus(await this.storage(), () => this.listQueues(), options.windowMinutes ?? 15, METRICS_SAMPLE);
  }

  /**
   * Writes a consistent copy of the live queue database to `destination`, a new file: safe while jobs run and
   * other processes write (SQLite's `VACUUM INTO` reads one snapshot). The copy is a complete database, with no
   * -wal file to carry along. This connection is busy for the copy's duration (seconds for hundreds of MB).
   * @throws InvalidArgumentError (not a non-empty path, or the file exists: a backup never overwrites),
   *   BackupNotSupportedError on PostgreSQL (use pg_dump).
   */
  async backup(destination: string): Promise<void> {
    if (typeof destination !== 'string' || destination.length === 0 || destination === ':memory:' || destination.includes('\0')) {
      throw new InvalidArgumentError('backup', 'destination', `must be the path of a new file, got ${describeValue(destination)}`);
    }
    if (existsSync(destination)) {
      throw new InvalidArgumentError('backup', 'destination', `already exists (${destination}): a backup never overwrites a file`);
    }
    await (await this.storage()).backup(destination);
  }

  /**
   * Resolves with the job's final state once it is completed, failed or cancelled, whichever process runs it (at
   * once if it already is). All waits of the process share one mechanism: the job's own events when this process
   * finishes it, else ONE statement per `pollInterval` for every waited job together (so a job finished elsewhere
   * is seen within about `pollInterval`); nothing is sent while nobody waits. A job removed while waited for (by
   * `remove`, `clean` or retention, in any process) rejects the wait with `JobNotFoundError`: at once when this
   * process removed it or, on PostgreSQL, when `remove` did anywhere; else at the next look, within `pollInterval`.
   * @throws JobNotFoundError (no such job, or removed while waited for), WaitTimeoutError (after `timeout` ms), ShutdownAbortError (the
   * application closed first), InvalidArgumentError (bad timeout).
   */
  async waitUntilFinished<TData = unknown, TResult = unknown>(id: string, options: WaitOptions = {}): Promise<JobInfo<TData, TResult>> {
    const rowId = assertJobId(id);
    const timeout = assertTimeout('waitUntilFinished', options);
    await this.storage();
    return toJobInfo<TData, TResult>(await this.runtime.finishWatcher.wait(rowId, timeout));
  }

  /**
   * Resolves once `queue` (or every queue) is idle: no running job and no due pending job, paused queues aside. Jobs
   * due later (delayed, or waiting for a retry) do not count. Meant for tests: `await admin.waitUntilIdle('email')`
   * after enqueuing, then assert. Each call checks for itself, at once after a job of this process settles and
   * otherwise every min(`pollInterval`, 50 ms).
   * @throws WaitTimeoutError, InvalidQueueNameError, InvalidArgumentError.
   */
  async waitUntilIdle(queue?: string, options: WaitOptions = {}): Promise<void> {
    if (queue !== undefined) assertQueueName(queue);
    const timeout = assertTimeout('waitUntilIdle', options);
    await waitUntilIdle(await this.storage(), this.runtime.events, {
      queue,
      timeout,
      interval: Math.min(this.runtime.options.pollInterval, 50),
    });
  }

  /**
   * The storage, once `queue` is known (see `hasQueue`): a control call on a queue nothing names is refused with
   * `QueueNotFoundError`, naming the closest known queue, and writes nothing (pausing a mistyped name would create it).
   */
  private async knownQueue(operation: string, queue: string): Promise<AdminStorage> {
    assertQueueName(queue);
    const storage = await this.storage();
    if (this.runtime.declaresQueue(queue) || (await this.storedQueue(storage, queue))) return storage;
    const known = [...this.runtime.declaredQueues(), ...(await this.listQueues()).map((info) => info.name)];
    throw new QueueNotFoundError(queue, operation, closestName(queue, known));
  }

  /**
   * Whether the database names `queue`: one statement (a job, a state row, a schedule), then, for a queue it does not
   * name, the processors' dead-letter declarations (an emptied dead-letter queue is still one: the next dead letter
   * goes there).
   */
  private async storedQueue(storage: AdminStorage, queue: string): Promise<boolean> {
    if (await storage.queueKnown(queue)) return true;
    return (await storage.deadLetterQueues()).some((info) => info.queue === queue);
  }

  /** The storage and the schedule `name` of `queue`. @throws InvalidQueueNameError, ScheduleNotFoundError. */
  private async schedule(queue: string, name: string): Promise<{ storage: AdminStorage; schedule: ScheduleRecord }> {
    assertQueueName(queue);
    const storage = await this.storage();
    const schedule = (await storage.listSchedules()).find((record) => record.queue === queue && record.name === name);
    if (!schedule) throw new ScheduleNotFoundError(queue, String(name));
    return { storage, schedule };
  }

  /** The storage, its driver errors turned into StorageError (the library's own errors pass unchanged). */
  private async storage(): Promise<AdminStorage> {
    return guardStorage(await this.runtime.storage(), 'QueueAdmin');
  }
}

/** The job name `getCounts` filters on, if any, once its options are known to be well-formed. */
function countName(queue: string | undefined, options: CountOptions): string | undefined {
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
function countGroup(queue: string | undefined, options: CountOptions): string | undefined {
  const { group } = options;
  if (group === undefined) return undefined;
  assertGroupFilter('getCounts', group);
  if (queue === undefined) throw new InvalidArgumentError('getCounts', 'group', 'needs a queue: a group means something within its queue');
  return group;
}

function emptyCounts(): JobCounts {
  return Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as JobCounts;
}

/** The order `getJobs` asks of the storage (undefined: the default, id newest first), its two options checked. */
function jobSortOf(options: GetJobsOptions): JobSort | undefined {
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

function assertStatus(method: string, status: unknown): asserts status is JobStatus {
  if (!JOB_STATUSES.includes(status as JobStatus)) {
    throw new InvalidArgumentError(method, 'status', `must be one of ${JOB_STATUSES.join(', ')}, got ${describeValue(status)}`);
  }
}

function cascadeOf(method: string, options: CascadeOptions): boolean {
  if (typeof options !== 'object' || options === null || (options.cascade !== undefined && typeof options.cascade !== 'boolean')) {
    throw new InvalidArgumentError(method, 'options', `must be { cascade?: boolean }, got ${describeValue(options)}`);
  }
  assertAdminOptions(method, options, CASCADE_OPTION_KEYS);
  return options.cascade === true;
}

function assertTimeout(method: string, options: WaitOptions): number | undefined {
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

function assertJobId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0) throw new JobNotFoundError(id);
  return id;
}
