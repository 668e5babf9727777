import { QueueError } from './queue.error';

/**
 * The name of the error recorded on an attempt whose lease expired (its worker crashed, hung or was killed). The
 * database writes it as `{ name: 'LeaseExpiredError', message, attempt }`; it is recorded, never thrown: compare
 * `job.error.name` with `LeaseExpiredError.name`.
 */
export class LeaseExpiredError extends QueueError {}
