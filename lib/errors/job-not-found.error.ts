import { QueueError } from './queue.error';

/** An operation named a job id that no job has. */
export class JobNotFoundError extends QueueError {
  constructor(
    /** The id given. */
    readonly jobId: unknown,
  ) {
    super(`No job with id ${JSON.stringify(jobId) ?? String(jobId)}`);
  }
}
