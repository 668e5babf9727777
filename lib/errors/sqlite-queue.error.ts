import { QueueError } from './queue.error';

/**
 * The name 0.1 gave the base class of every error of this library; the same class as `QueueError`, so
 * `instanceof SqliteQueueError` keeps working whichever backend threw.
 */
export const SqliteQueueError = QueueError;
/** See the `SqliteQueueError` value. */
export type SqliteQueueError = QueueError;
