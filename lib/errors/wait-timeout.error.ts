import { QueueError } from './queue.error';

/**
 * `waitUntilFinished` / `waitUntilIdle` gave up after its `timeout`. Nothing changed: the job (or queue) goes on,
 * and a later wait may still see it finish.
 */
export class WaitTimeoutError extends QueueError {
  constructor(
    /** What was waited for: `job 42`, `queue "email"`, `every queue`. */
    readonly subject: string,
    /** The timeout it had, in ms. */
    readonly timeout: number,
  ) {
    super(`Waiting for ${subject} timed out after ${timeout} ms`);
  }
}
