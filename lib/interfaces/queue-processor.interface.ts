import { Job } from './job.interface';

/**
 * The contract of a `@Processor` class: one method that runs a job and resolves with its result.
 * Resolving completes the job (the value is stored as its result); throwing fails the attempt.
 */
export interface QueueProcessor<TData = unknown, TResult = unknown> {
  /** Runs one job. */
  process(job: Job<TData, TResult>): Promise<TResult>;
}

/**
 * Optional base class for processors, for those who prefer `extends` to `implements`.
 * Either way, what is checked at boot is that `process` is a method.
 */
export abstract class WorkerHost<TData = unknown, TResult = unknown> implements QueueProcessor<TData, TResult> {
  /** Runs one job. */
  abstract process(job: Job<TData, TResult>): Promise<TResult>;
}

/**
 * The contract of a batch processor (`@Processor(queue, { batch: { size } })`): one call runs up to `size` jobs.
 * Returning nothing or a single value completes every job with it. Returning an array aligned with `jobs` gives each
 * job its own outcome: an item that is an `Error` (or a promise that rejects) fails that job alone, retried with its
 * own backoff; any other item is that job's result. Throwing fails the attempt of every job of the call. An array of
 * another length fails every job of the call for good with `InvalidBatchResultError`.
 */
export interface BatchProcessor<TData = unknown, TResult = unknown> {
  /** Runs a batch of jobs. */
  process(jobs: Job<TData, TResult>[]): Promise<void | TResult | Array<TResult | Error | Promise<TResult>>>;
}
