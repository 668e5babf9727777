import type { EntityManager } from 'typeorm';
import { JobInfo, JobProgress } from './job-info.interface';
import { WaitOptions } from './wait-options.interface';

/**
 * A job as a processor sees it, and as `QueueProducer.add()` returns it.
 * `TData` is the payload type; it is whatever was enqueued, after a JSON round-trip. `TResult` is the result type
 * its handler completes it with (`completeIn`).
 */
export interface Job<TData = unknown, TResult = unknown> {
  /** Database id, as a string. Stable for the life of the job. */
  readonly id: string;
  /** The queue the job belongs to. */
  readonly queue: string;
  /** The job's name inside its queue (`add(queue, data, { name })`), or null when it was given none. */
  readonly name: string | null;
  /** The payload (after `updateData()`, the new one). */
  readonly data: TData;
  /** 1-based number of this run (0 on a job returned by `add()`, which has not run yet). */
  readonly attempt: number;
  /** Total runs allowed. */
  readonly maxAttempts: number;
  /** Higher runs first. */
  readonly priority: number;
  /** When the job was enqueued. */
  readonly createdAt: Date;
  /** When the job became (or becomes) due. */
  readonly runAt: Date;
  /** The deduplication key, if it was added with one. */
  readonly key: string | null;
  /** The job's group (`add(queue, data, { group })`), or null when it was given none. */
  readonly group: string | null;
  /**
   * Aborted when this attempt times out or the application shuts down past its grace period.
   * Pass it to `fetch`, streams and timers so the work stops with it.
   */
  readonly signal: AbortSignal;
  /**
   * Stores progress on the job (a number or a small JSON object, at most 16 KiB as JSON) and emits a
   * `progress` event. Only the running attempt can report progress; elsewhere it rejects.
   */
  updateProgress(progress: JobProgress): Promise<void>;
  /**
   * Appends a line to the job's log, kept with the job across attempts and read with `QueueAdmin.getJobLogs(id)`.
   * Bounded: at most 100 lines (a new line past that drops the oldest) of at most 1,000 characters (a longer one is
   * cut, saying so). Only the running attempt can log; elsewhere it rejects with `JobNotRunningError`.
   */
  log(line: string): Promise<void>;
  /**
   * Replaces the job's data, validated like `add()`'s (`InvalidJobDataError`, nothing written), e.g. to record how
   * far it got so a retry resumes there. `job.data` shows the new value once it resolves. Only the running attempt
   * can update it; elsewhere it rejects with `JobNotRunningError`.
   */
  updateData(data: TData): Promise<void>;
  /**
   * The results of this job's completed children (see `QueueProducer.addFlow()`), keyed by child job id: what each
   * child's handler resolved with (`null` for nothing). Empty for a job without children.
   */
  getChildrenResults<TChildResult = unknown>(): Promise<Record<string, TChildResult>>;
  /**
   * The results of this job's completed dependencies (`JobOptions.dependsOn`), keyed by job id: what each one's
   * handler resolved with (`null` for nothing). Those that failed, were cancelled or removed are not in it. Empty for a
   * job without dependencies.
   */
  getDependencyResults<TDependencyResult = unknown>(): Promise<Record<string, TDependencyResult>>;
  /**
   * Transactional completion: completes this attempt inside your open TypeORM transaction, `manager` being its
   * `EntityManager` (`dataSource.transaction(async (manager) => ...)`), with `result` as the job's result (checked
   * like a returned result: `InvalidJobResultError`, nothing written). The job is completed if and only if that
   * transaction commits, atomically with your own writes in it; what the handler returns afterwards is ignored. A
   * transaction that rolls back (or is still open when the handler returns) fails the attempt with
   * `CompletionNotCommittedError`, retried as the retry policy says. PostgreSQL, and SQLite when the transaction
   * is on the queue's database file; anything else rejects with `UnsupportedTransactionError` and writes nothing.
   * Rejects with `JobNotRunningError` (your transaction should roll back) when this attempt is no longer the job's
   * running one: its lease expired and another worker took it, it was cancelled, it timed out, or it was already
   * completed by `completeIn`. After it, `updateProgress`, `log` and `updateData` reject with `JobNotRunningError`.
   */
  completeIn(manager: EntityManager, result?: TResult): Promise<void>;
}

/** A job as `QueueProducer.add()` / `addBulk()` return it: a `Job` that can also be waited for. */
export interface EnqueuedJob<TData = unknown, TResult = unknown> extends Job<TData, TResult> {
  /**
   * Resolves with the job's final state (completed, failed or cancelled), whichever process runs it: the same as
   * `QueueAdmin.waitUntilFinished(job.id, options)`.
   * @throws WaitTimeoutError, JobNotFoundError (the job was removed meanwhile), ShutdownAbortError.
   */
  waitUntilFinished(options?: WaitOptions): Promise<JobInfo<TData, TResult>>;
}
