import { SqliteQueueError } from './sqlite-queue.error';

/** An operation named a job id that no job has. */
export class JobNotFoundError extends SqliteQueueError {
  constructor(
    /** The id given. */
    readonly jobId: unknown,
  ) {
    super(`No job with id ${JSON.stringify(jobId) ?? String(jobId)}`);
  }
}
