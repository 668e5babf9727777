import { QueueError } from './queue.error';

/**
 * Throw it from a handler to fail the job at once, without the retries left: for input that will never
 * succeed (a deleted account, a malformed file).
 */
export class UnrecoverableError extends QueueError {}
