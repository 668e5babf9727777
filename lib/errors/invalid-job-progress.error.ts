import { QueueError } from './queue.error';

/** A value passed to `job.updateProgress()` that is not a finite number or a small JSON object. Nothing is written. */
export class InvalidJobProgressError extends QueueError {
  constructor(
    /** The job's queue. */
    readonly queue: string,
    /** The job. */
    readonly jobId: string,
    reason: string,
  ) {
    super(`Invalid progress for job ${jobId} (queue "${queue}"): ${reason}`);
  }
}
