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
