import { QueueError } from './queue.error';

/**
 * Recorded as the error of an attempt whose outcome the database refused with an error a retry cannot fix (a value
 * the column rejects, a constraint, a full disk). The worker does not retry such a write for ever: it fails the
 * attempt for good with this error instead, so the job ends in a defined state and its slot is freed. `cause` is
 * the database's error.
 */
export class OutcomeWriteError extends QueueError {
  constructor(
    /** The job whose outcome could not be saved. */
    readonly jobId: string,
    /** Its queue. */
    readonly queue: string,
    /** The outcome that could not be saved. */
    readonly outcome: 'complete' | 'retry' | 'fail',
    cause: unknown,
  ) {
    super(`Saving the outcome (${outcome}) of job ${jobId} (queue "${queue}") failed: ${causeText(cause)}`, { cause });
  }
}

function causeText(cause: unknown): string {
  try {
    return cause instanceof Error ? cause.message : String(cause);
  } catch {
    return 'an unreadable error';
  }
}
