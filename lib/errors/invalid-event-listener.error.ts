import { QueueError } from './queue.error';

/**
 * A provider's `@OnJobEvent`, `@OnQueueEvent` or `@QueueEventsListener` cannot work as declared (unknown event type,
 * `@OnQueueEvent` outside a `@QueueEventsListener` class, a request-scoped provider). Thrown by `app.init()`.
 */
export class InvalidEventListenerError extends QueueError {
  constructor(
    /** The provider's class name. */
    readonly listener: string,
    /** Why. */
    readonly reason: string,
  ) {
    super(`Event listener ${listener} is invalid: ${reason}`);
  }
}
