import { QueueError } from './queue.error';

/**
 * The reason set on a running job's `signal` when the application shuts down and the job is still running after
 * `shutdownTimeout`: the job is handed back, its attempt uncounted, and runs again elsewhere or after the restart.
 */
export class ShutdownAbortError extends QueueError {}
