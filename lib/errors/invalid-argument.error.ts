import { QueueError } from './queue.error';

/**
 * An argument that is out of range or of the wrong type (a negative limit, an unknown status...): of a `QueueAdmin`
 * method, of `QueueProducer.addFlow` / `addGraph`, of a job's `log` or `waitUntilFinished`, or of `new SnoozeError`.
 */
export class InvalidArgumentError extends QueueError {
  constructor(
    /** The method, e.g. `clean`. */
    readonly method: string,
    /** The argument, e.g. `olderThan`. */
    readonly argument: string,
    reason: string,
    /**
     * What the method belongs to, written before it in the message: `QueueAdmin` unless given, `QueueProducer`,
     * `job`, or '' when `method` is already the call as written (`new SnoozeError`).
     */
    readonly owner: string = 'QueueAdmin',
  ) {
    super(`${owner === '' ? '' : `${owner}.`}${method}(): ${argument} ${reason}`);
  }
}
