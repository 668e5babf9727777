import { QueueError } from './queue.error';

/**
 * `job.updateProgress()`, `job.log()` or `job.updateData()` called on a job that this process is not running (finished,
 * cancelled, or returned by `add()`).
 */
export class JobNotRunningError extends QueueError {
  constructor(
    /** The job. */
    readonly jobId: string,
    /** The job's queue. */
    readonly queue: string,
  ) {
    super(
      `Job ${jobId} (queue "${queue}") is not running in this process: only its running attempt can report progress, log or update its data`,
    );
  }
}
