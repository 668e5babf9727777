import { JobInfo, JobProgress } from './job-info.interface';
import { WaitOptions } from './wait-options.interface';

/**
 * A job as a processor sees it, and as `QueueProducer.add()` returns it.
 * `TData` is the payload type; it is whatever was enqueued, after a JSON round-trip.
 */
export interface Job<TData = unknown> {
  /** Database id, as a string. Stable for the life of the job. */
  readonly id: string;
  /** The queue the job belongs to. */
  readonly queue: string;
  /** The payload. */
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
}

/** A job as `QueueProducer.add()` / `addBulk()` return it: a `Job` that can also be waited for. */
export interface EnqueuedJob<TData = unknown, TResult = unknown> extends Job<TData> {
  /**
   * Resolves with the job's final state (completed, failed or cancelled), whichever process runs it: the same as
   * `QueueAdmin.waitUntilFinished(job.id, options)`.
   * @throws WaitTimeoutError, JobNotFoundError (the job was removed meanwhile), ShutdownAbortError.
   */
  waitUntilFinished(options?: WaitOptions): Promise<JobInfo<TData, TResult>>;
}
