import { QueueError } from './queue.error';

/**
 * `QueueAdmin.promote()` of a flow parent that still waits for its children: running it now would run it before
 * them. It runs by itself once the last child has ended.
 */
export class JobWaitingForChildrenError extends QueueError {
  constructor(
    /** The parent job. */
    readonly jobId: string,
  ) {
    super(`Cannot promote job ${jobId}: it is a flow parent waiting for its children, and runs once the last of them has ended`);
  }
}
