import { QueueError } from './queue.error';

/**
 * Recorded as the error of an attempt whose handler returned a result that would not come back unchanged from
 * JSON (a BigInt, a cycle, a class instance, a `Date`, a function...). The job fails for good, without its
 * remaining retries: the handler's work is done, and running it again would repeat its side effects only to
 * return the same value.
 */
export class InvalidJobResultError extends QueueError {
  constructor(
    /** The job whose result was refused. */
    readonly jobId: string,
    /** Its queue. */
    readonly queue: string,
    /** Where in the result the problem is, as a property path starting at `result`. */
    readonly path: string,
    reason: string,
  ) {
    super(`The result of job ${jobId} (queue "${queue}") cannot be stored as JSON: ${path} ${reason}. Return plain JSON values.`);
  }
}
