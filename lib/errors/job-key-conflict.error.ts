import { QueueError } from './queue.error';

/**
 * A job's unique key is held by another live (pending or running) job of its queue: `retry()` of a failed or
 * cancelled job whose key was taken meanwhile (for a debounced job that never started: by another debounced job of
 * its key that has not started either), or an `add()` whose key kept changing hands faster than it could
 * be enqueued or found. Nothing is written.
 */
export class JobKeyConflictError extends QueueError {
  constructor(
    /** The queue. */
    readonly queue: string,
    /** The contested key. */
    readonly key: string,
    reason: string,
    /** The job that could not be retried, when the conflict is a retry's. */
    readonly jobId?: string,
    /** The live job holding the key, when known. */
    readonly holderId?: string,
  ) {
    super(`Key ${JSON.stringify(key)} of queue "${queue}": ${reason}`);
  }
}
