import { Injectable } from '@nestjs/common';
import { CascadeOptions } from '../interfaces/flow-job.interface';
import { JobExplanation } from '../interfaces/job-explanation.interface';
import { GetJobDependenciesOptions, JobDependencies } from '../interfaces/job-dependencies.interface';
import { JobCounts, JobInfo } from '../interfaces/job-info.interface';
import { MetricsSnapshot } from '../interfaces/metrics.interface';
import { ProcessesInfo } from '../interfaces/process-info.interface';
import {
  CleanOptions,
  CountOptions,
  FailureGroup,
  FailureGroupsOptions,
  GetGroupsOptions,
  GetJobsOptions,
  GroupInfo,
  QueueInfo,
  QueueLimitsInfo,
  RetryAllOptions,
  RetryAllReport,
} from '../interfaces/queue-info.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { QueueRuntime } from '../runtime/queue-runtime';
import { AdminContext } from './admin-context';
import { JobInspection } from './job-inspection';
import { Operations } from './operations';
import { QueueControl } from './queue-control';
import { DeadLetterQueueInfo, RedriveOptions } from './redrive';
import { ScheduleControl } from './schedule-control';

/**
 * Inspects and controls jobs and queues, across every process sharing the database. Inject it anywhere.
 *
 * The public face of four parts, one per concern (job-inspection.ts, queue-control.ts, schedule-control.ts,
 * operations.ts), sharing one context (admin-context.ts): each method here says what it does and passes the call on.
 */
@Injectable()
export class QueueAdmin {
  private readonly inspection: JobInspection;
  private readonly control: QueueControl;
  private readonly schedules: ScheduleControl;
  private readonly operations: Operations;

  constructor(runtime: QueueRuntime) {
    const queueNames = async () => (await this.inspection.listQueues()).map((info) => info.name);
    const context = new AdminContext(runtime, queueNames);
    this.inspection = new JobInspection(context);
    this.control = new QueueControl(context);
    this.schedules = new ScheduleControl(context);
    this.operations = new Operations(context, () => this.inspection.listQueues());
  }

  /**
   * One job with its whole state, including its place in a flow (`flow`) and its run history (`runs`), or `null`
   * when no job has that id.
   */
  async getJob<TData = unknown, TResult = unknown>(id: string): Promise<JobInfo<TData, TResult> | null> {
    return this.inspection.getJob<TData, TResult>(id);
  }

  /**
   * Why a job is where it is: running (owner, lease), or what holds a pending one back (its children, a pause, its
   * delay or backoff, no live processor, a rate limit, the global or the group concurrency), or `due` (waiting for a free slot), or
   * finished. One statement; the limits only a processor declares (global and group concurrency) are this process's.
   * @throws JobNotFoundError for an id that names no job.
   */
  async explain(id: string): Promise<JobExplanation> {
    return this.inspection.explain(id);
  }

  /**
   * The lines a job's handlers stored with `job.log()`, oldest first (at most the newest 100), or `null` when no job
   * has that id.
   */
  async getJobLogs(id: string): Promise<string[] | null> {
    return this.inspection.getJobLogs(id);
  }

  /**
   * The limits on a queue: the rate limiters its processors declared (`limiter`, `groupLimiter`, kept for every
   * process), this application's concurrency bounds for it (`concurrency`, `globalConcurrency`, `groupConcurrency`: a
   * processor's, or the module's `queueLimits`), and until when it cannot be claimed now (a used-up window or a
   * handler's RateLimitError). One statement.
   * @throws InvalidQueueNameError for a malformed queue name.
   */
  async getQueueLimits(queue: string): Promise<QueueLimitsInfo> {
    return this.inspection.getQueueLimits(queue);
  }

  /**
   * The graph around a job (`dependsOn`): the jobs it waits for (a deleted one as `removed`) and the jobs that wait
   * for it, each with its queue, name and status, oldest first, up to `limit` on each side (default 50, at most
   * 1,000), with how many there are; empty lists for a job outside any graph, `null` when no job has that id.
   * @throws InvalidArgumentError for an unknown option or a limit out of range.
   */
  async getJobDependencies(id: string, options: GetJobDependenciesOptions = {}): Promise<JobDependencies | null> {
    return this.inspection.getJobDependencies(id, options);
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
    return this.inspection.getCounts(queue, options);
  }

  /**
   * The queue's groups (`JobOptions.group`) with the most running jobs, most first, each with its running and pending
   * counts (pending counted up to 10,000: a larger backlog reads as 10,000). At most `limit` (1 to 1000, default 10).
   * @throws InvalidQueueNameError, InvalidArgumentError (options not an object, an unknown option, a bad limit).
   */
  async getGroups(queue: string, options: GetGroupsOptions = {}): Promise<GroupInfo[]> {
    return this.inspection.getGroups(queue, options);
  }

  /**
   * The queue's failed jobs grouped by error (name and message), most failures first: each group's count, when the
   * newest of them failed and its id. Read from the newest 1,000 failed jobs (by finish time, through the index of
   * finished jobs, the head of each error only), so the counts are of recent failures and the cost is bounded
   * whatever the history. At most `limit` groups (1 to 100, default 10).
   * @throws InvalidQueueNameError, InvalidArgumentError (options not an object, an unknown option, a bad limit).
   */
  async getFailureGroups(queue: string, options: FailureGroupsOptions = {}): Promise<FailureGroup[]> {
    return this.inspection.getFailureGroups(queue, options);
  }

  /**
   * Jobs of a queue, newest first (or in the order `orderBy` and `order` ask), optionally of one status, name or
   * group and holding a text (`search`), in any combination, a page at a time.
   * @throws InvalidQueueNameError, InvalidArgumentError (an unknown `orderBy` names the closest field).
   */
  async getJobs<TData = unknown, TResult = unknown>(queue: string, options: GetJobsOptions = {}): Promise<JobInfo<TData, TResult>[]> {
    return this.inspection.getJobs<TData, TResult>(queue, options);
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
    return this.inspection.getJobsByKey<TData, TResult>(queue, key, options);
  }

  /** Every queue known to the database or to this application, with its counts, paused state and processor. */
  async listQueues(): Promise<QueueInfo[]> {
    return this.inspection.listQueues();
  }

  /**
   * Whether the queue is known: this application declares it (a processor, a `registerQueue` handle), or the
   * database has a job of it, a row of its state (paused, limits, a processor's announcement) or a schedule, or a
   * processor names it as its dead-letter queue (`deadLetter`), even before its first dead letter. The
   * control calls (`pause`, `resume`, `retryAll`, `clean`) refuse any other queue with `QueueNotFoundError`.
   * @throws InvalidQueueNameError for a malformed queue name.
   */
  async hasQueue(queue: string): Promise<boolean> {
    return this.inspection.hasQueue(queue);
  }

  /**
   * Stops claims of a queue in every process sharing the database; running jobs finish. This process's jobs of the
   * queue claimed ahead of a slot (`prefetch`) or waiting in a batch not yet called go back to pending, unspent, before
   * it resolves; another process still starts those it had claimed ahead. A queue may be paused before
   * its first job once something declares it (a processor or `registerQueue` in this app, a processor elsewhere).
   * @throws InvalidQueueNameError, QueueNotFoundError (no such queue: see `hasQueue`; nothing is written).
   */
  async pause(queue: string): Promise<void> {
    return this.control.setPaused(queue, true);
  }

  /**
   * Lets a paused queue be claimed again.
   * @throws InvalidQueueNameError, QueueNotFoundError (no such queue: nothing is written).
   */
  async resume(queue: string): Promise<void> {
    return this.control.setPaused(queue, false);
  }

  /**
   * Cancels a pending or running job: a pending one never runs; a running one has its `signal` aborted (at
   * once in this process, at its next heartbeat elsewhere) and its outcome is discarded. Ends `cancelled`.
   * A cancelled child of a flow counts as failed for its parent. With `{ cascade: true }`, every live descendant
   * of the job (children, their children...) is cancelled too.
   * @throws JobNotFoundError, InvalidJobStateError (the job already finished).
   */
  async cancel(id: string, options: CascadeOptions = {}): Promise<void> {
    return this.control.cancel(id, options);
  }

  /**
   * Runs a failed or cancelled job again, with a fresh set of attempts. A flow parent with children still pending or
   * running (a cancel without cascade leaves them so) waits for them again, and runs after the last one; so does a
   * dependent (`dependsOn`) with a dependency pending or running (retried before it), resolved by that end.
   * @throws JobNotFoundError, InvalidJobStateError, JobKeyConflictError (a live job of the queue holds its key, or,
   * for a debounced job that never started, another unstarted debounced job of its key: retry it once that job has
   * finished).
   */
  async retry(id: string): Promise<void> {
    return this.control.retry(id);
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
    return this.control.retryAll(queue, options);
  }

  /**
   * Sends the dead letters of `deadLetterQueue` (pending or failed; not one a processor of that queue is running)
   * back into the queue each came from, as fresh jobs (attempts 0, due now, same data, name and options), and removes
   * them from the dead-letter queue, atomically; resolves with how many moved. `limit`: the oldest that many only.
   * @throws InvalidQueueNameError, InvalidArgumentError, QueueNotFoundError (no such queue: a mistyped name would
   * otherwise answer "0 moved"; nothing is written).
   */
  async redrive(deadLetterQueue: string, options?: RedriveOptions): Promise<number> {
    return this.control.redrive(deadLetterQueue, options);
  }

  /** Every queue some processor names as its `deadLetter`, with the queues naming it and its dead letters waiting. */
  async listDeadLetterQueues(): Promise<DeadLetterQueueInfo[]> {
    return this.operations.listDeadLetterQueues();
  }

  /**
   * Deletes a job that is not running. Removing a live child of a flow releases its parent from waiting for it. With
   * `{ cascade: true }`, every descendant is deleted too, in one atomic decision: the whole tree, or nothing while one
   * of its jobs runs (no worker of any process can claim a job of it in between).
   * @throws JobNotFoundError, InvalidJobStateError (running: cancel it first; with `cascade`, it names the running job).
   */
  async remove(id: string, options: CascadeOptions = {}): Promise<void> {
    return this.control.remove(id, options);
  }

  /**
   * Runs a delayed pending job now (BullMQ's `promote`): it becomes due at once and is claimed like any due job, its
   * priority and attempts unchanged. Resolves true when it moved, false when it was already due.
   * @throws JobNotFoundError, InvalidJobStateError (not pending), JobWaitingForChildrenError (a flow parent whose
   * children have not all ended: it runs after them).
   */
  async promote(id: string): Promise<boolean> {
    return this.control.promote(id);
  }

  /**
   * Stops a recurring job from enqueuing occurrences, in every process, until `resumeSchedule`; it keeps its next run
   * time, and stays paused when the app declares it again (even changed). Idempotent.
   * @throws InvalidQueueNameError, ScheduleNotFoundError (nothing written).
   */
  async pauseSchedule(queue: string, name: string): Promise<void> {
    return this.schedules.pause(queue, name);
  }

  /**
   * Resumes a paused recurring job at its first occurrence after now: occurrences missed while paused are not run.
   * Idempotent (a schedule that is not paused is left as it is).
   * @throws InvalidQueueNameError, ScheduleNotFoundError.
   */
  async resumeSchedule(queue: string, name: string): Promise<void> {
    return this.schedules.resume(queue, name);
  }

  /**
   * Enqueues one run of a recurring job now, as the scheduler would (its data and job options), paused or not; its
   * next run is unchanged. Each call makes its own run, in one statement, and resolves with that run's job id: calls
   * made at once each make one, and none is taken for a duplicate of another or of the scheduled occurrence.
   * @throws InvalidQueueNameError, ScheduleNotFoundError (also when the schedule is removed during the call).
   */
  async runScheduleNow(queue: string, name: string): Promise<string> {
    return this.schedules.runNow(queue, name);
  }

  /**
   * The newest job a recurring job enqueued (its last run, whatever its status; retention may have removed older
   * ones), or null.
   * @throws InvalidQueueNameError.
   */
  async getLastScheduleRun<TData = unknown, TResult = unknown>(queue: string, name: string): Promise<JobInfo<TData, TResult> | null> {
    return this.schedules.lastRun<TData, TResult>(queue, name);
  }

  /**
   * Which processes run which queues: every processing process that announced itself (idle ones too; stopped and
   * lost ones for an hour) with its processors and running jobs, this application's processors, every worker id
   * seen running jobs, and the queues' live processor announcements.
   */
  async listProcesses(): Promise<ProcessesInfo> {
    return this.operations.listProcesses();
  }

  /**
   * Deletes a queue's jobs of some statuses that finished (pending: were created) at least `olderThan` ms ago.
   * Returns how many. @throws InvalidQueueNameError, InvalidArgumentError, QueueNotFoundError (no such queue).
   */
  async clean(queue: string, options: CleanOptions): Promise<number> {
    return this.control.clean(queue, options);
  }

  /**
   * Recent activity per queue from the jobs table: completions and failures per minute, and wait and run
   * time percentiles of the jobs finished in the last `windowMinutes` (1 to 1440, default 15). Jobs removed
   * by retention are not counted.
   */
  async getMetrics(options: { windowMinutes?: number } = {}): Promise<MetricsSnapshot> {
    return this.operations.getMetrics(options);
  }

  /**
   * The queues' metrics in Prometheus' text exposition format (serve it as `text/plain; version=0.0.4`): job counts by
   * queue and status and paused state (gauges, of the database now), and of the jobs finished in the last
   * `windowMinutes` (1 to 1440, default 15; database-wide, whichever process ran them): completions and failures
   * (gauges over that sliding window, not counters since boot) and wait and run time summaries in seconds.
   * @throws InvalidArgumentError for a bad window or an unknown option.
   */
  async exportPrometheusMetrics(options: { windowMinutes?: number } = {}): Promise<string> {
    return this.operations.exportPrometheusMetrics(options);
  }

  /**
   * Writes a consistent copy of the live queue database to `destination`, a new file: safe while jobs run and
   * other processes write (SQLite's `VACUUM INTO` reads one snapshot). The copy is a complete database, with no
   * -wal file to carry along. This connection is busy for the copy's duration (seconds for hundreds of MB).
   * @throws InvalidArgumentError (not a non-empty path, or the file exists: a backup never overwrites),
   *   BackupNotSupportedError on PostgreSQL (use pg_dump).
   */
  async backup(destination: string): Promise<void> {
    return this.operations.backup(destination);
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
    return this.inspection.waitUntilFinished<TData, TResult>(id, options);
  }

  /**
   * Resolves once `queue` (or every queue) is idle: no running job and no due pending job, paused queues aside. Jobs
   * due later (delayed, or waiting for a retry) do not count. Meant for tests: `await admin.waitUntilIdle('email')`
   * after enqueuing, then assert. Each call checks for itself, at once after a job of this process settles and
   * otherwise every min(`pollInterval`, 50 ms).
   * @throws WaitTimeoutError, InvalidQueueNameError, InvalidArgumentError.
   */
  async waitUntilIdle(queue?: string, options: WaitOptions = {}): Promise<void> {
    return this.inspection.waitUntilIdle(queue, options);
  }
}
