import { QueueError } from './queue.error';

/** A queue name that is not a non-empty string of letters, digits and `_ . : -` (at most 128). */
export class InvalidQueueNameError extends QueueError {
  constructor(
    /** The rejected value, whatever its type. */
    readonly queue: unknown,
  ) {
    super(
      `Invalid queue name ${describe(queue)}: a queue name is 1 to 128 characters of letters, digits, "_", ".", ":" or "-", starting with a letter, digit or "_".`,
    );
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : `(${value === null ? 'null' : typeof value})`;
}
