import { QueueError } from './queue.error';

/** One problem of refused job data: where it is (a property path starting at `data`) and what is wrong. */
export interface JobDataIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Job data that would not come back unchanged from JSON (a function, `undefined`, a BigInt, a cycle,
 * a class instance, a non-finite number...), or that the queue's `schema` refuses (then `issues` holds every
 * problem the schema reported, `path` and the message name the first). Nothing is written when it is thrown.
 */
export class InvalidJobDataError extends QueueError {
  /** Every problem found, the first one first (a JSON problem is one issue). */
  readonly issues: readonly JobDataIssue[];

  constructor(
    /** The queue the job was meant for. */
    readonly queue: string,
    /** Where in the data the (first) problem is, as a property path starting at `data`. */
    readonly path: string,
    reason: string,
    /** Given when the queue's schema refused the data: all of its issues. */
    schemaIssues?: readonly JobDataIssue[],
  ) {
    super(
      schemaIssues
        ? `Job data for queue "${queue}" does not match the queue's schema: ${path}: ${reason}${more(schemaIssues.length)}. Nothing was enqueued.`
        : `Job data for queue "${queue}" cannot be stored as JSON: ${path} ${reason}. Nothing was enqueued.`,
    );
    this.issues = schemaIssues ?? [{ path, message: reason }];
  }
}

function more(count: number): string {
  return count > 1 ? ` (and ${count - 1} more issue${count > 2 ? 's' : ''})` : '';
}
