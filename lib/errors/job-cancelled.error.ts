import { QueueError } from './queue.error';

/** The reason of a running job's `signal` when an operator cancels it. */
export class JobCancelledError extends QueueError {
  constructor(
    /** The cancelled job. */
    readonly jobId: string,
  ) {
    super(`Job ${jobId} was cancelled`);
  }
}
