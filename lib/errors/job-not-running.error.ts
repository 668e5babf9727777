import { QueueError } from './queue.error';

/**
 * `job.updateProgress()`, `job.log()`, `job.updateData()` or `job.completeIn()` called on a job that this process is
 * not running in this attempt (finished, cancelled, its lease lost to another worker, already completed by
 * `completeIn`, or returned by `add()`).
 */
export class JobNotRunningError extends QueueError {
  constructor(
    /** The job. */
    readonly jobId: string,
    /** The job's queue. */
    readonly queue: string,
    /** Why, when more is known than "not running here". */
    detail?: string,
  ) {
    super(
      `Job ${jobId} (queue "${queue}") is not running in this process: ${
        detail ?? 'only its running attempt can report progress, log, update its data or complete it in a transaction'
      }`,
    );
  }
}
