import { JobProgress } from './job-info.interface';

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
  /**
   * The results of this job's completed children (see `QueueProducer.addFlow()`), keyed by child job id: what each
   * child's handler resolved with (`null` for nothing). Empty for a job without children.
   */
  getChildrenResults<TResult = unknown>(): Promise<Record<string, TResult>>;
}
