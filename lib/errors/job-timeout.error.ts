import { QueueError } from './queue.error';

/** Recorded as the error of an attempt that outlived its `timeout`; the job's signal was aborted with it. */
export class JobTimeoutError extends QueueError {
  constructor(
    /** The job that timed out. */
    readonly jobId: string,
    /** The timeout it had, in ms. */
    readonly timeout: number,
  ) {
    super(`Job ${jobId} timed out after ${timeout} ms`);
  }
}
