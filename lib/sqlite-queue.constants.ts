/** Nest's side of the module: the options' injection token and the decorators' metadata keys. */

/** Injection token of the resolved module options. */
export const SQLITE_QUEUE_MODULE_OPTIONS = Symbol('SQLITE_QUEUE_MODULE_OPTIONS');

/** Metadata key under which `@Processor` stores its queue and options. */
export const PROCESSOR_METADATA = 'sqlite-queue:processor';

/** Metadata key under which `@OnJobEvent` stores its event type. */
export const ON_JOB_EVENT_METADATA = 'sqlite-queue:on-job-event';

/** Metadata key of `@QueueEventsListener` (the queue it listens to). */
export const QUEUE_EVENTS_LISTENER_METADATA = 'sqlite-queue:queue-events-listener';

/** Metadata key of `@OnQueueEvent` (the event type). */
export const ON_QUEUE_EVENT_METADATA = 'sqlite-queue:on-queue-event';
