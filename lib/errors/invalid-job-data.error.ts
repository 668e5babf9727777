import { QueueError } from './queue.error';

/**
 * Job data that would not come back unchanged from JSON (a function, `undefined`, a BigInt, a cycle,
 * a class instance, a non-finite number...). Nothing is written when it is thrown.
 */
export class InvalidJobDataError extends QueueError {
  constructor(
    /** The queue the job was meant for. */
    readonly queue: string,
    /** Where in the data the problem is, as a property path starting at `data`. */
    readonly path: string,
    reason: string,
  ) {
    super(`Job data for queue "${queue}" cannot be stored as JSON: ${path} ${reason}. Nothing was enqueued.`);
  }
}
