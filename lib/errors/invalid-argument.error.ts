import { QueueError } from './queue.error';

/** An argument of a `QueueAdmin` method that is out of range or of the wrong type (a negative limit, an unknown status...). */
export class InvalidArgumentError extends QueueError {
  constructor(
    /** The method, e.g. `clean`. */
    readonly method: string,
    /** The argument, e.g. `olderThan`. */
    readonly argument: string,
    reason: string,
  ) {
    super(`QueueAdmin.${method}(): ${argument} ${reason}`);
  }
}
