import { QueueError } from './queue.error';

/**
 * The name of the error recorded on a job whose stored data is not valid JSON, or one of whose columns holds a value
 * this library never writes, such as an SQLite BLOB (written by another tool, or the row was damaged): the job fails
 * at once, without retries, and the poller and every other job go on. Recorded, never
 * thrown: compare `job.error.name` with `InvalidStoredDataError.name`.
 */
export class InvalidStoredDataError extends QueueError {}
