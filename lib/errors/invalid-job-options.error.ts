import { QueueError } from './queue.error';

/** An `add()` / `addBulk()` option (or a bulk item) that is out of range or of the wrong type. Nothing is written. */
export class InvalidJobOptionsError extends QueueError {
  constructor(
    /** The queue the job was meant for. */
    readonly queue: string,
    /** The offending option, e.g. `delay` or `items[3].options.priority`. */
    readonly option: string,
    reason: string,
  ) {
    super(`Invalid job option ${option} for queue "${queue}": ${reason}. Nothing was enqueued.`);
  }
}
