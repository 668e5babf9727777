import { QueueError } from './queue.error';

/**
 * The error a flow parent records (as `getJob(id).error.name`) when one of its children ended failed or cancelled
 * and the parent was added with `onChildFailure: 'fail'` (the default): the parent fails without running. The
 * database writes it (in the statement that finishes the child), so this class is what to compare names with.
 */
export class ChildFailedError extends QueueError {
  constructor(
    /** The child that ended failed or cancelled. */
    readonly childId: string,
  ) {
    super(`Child job ${childId} ended failed or cancelled before this parent could run`);
  }
}
