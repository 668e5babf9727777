import { QueueError } from './queue.error';

/**
 * A `@Processor` class that cannot run jobs: it has no `process()` method, its options are invalid,
 * or it is request-scoped. `app.init()` rejects with it.
 */
export class InvalidProcessorError extends QueueError {
  constructor(
    /** The class carrying the `@Processor` decorator. */
    readonly processor: string,
    /** The queue it was declared for. */
    readonly queue: string,
    reason: string,
  ) {
    super(`@Processor('${queue}') on ${processor} is invalid: ${reason}`);
  }
}
