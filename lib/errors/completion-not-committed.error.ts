import { QueueError } from './queue.error';

/** What became of the transaction `job.completeIn()` wrote into, by the time the handler ended. */
export type CompletionNotCommittedReason = 'rolled-back' | 'still-open';

/**
 * Recorded, never thrown to a handler: the error of an attempt whose handler called `job.completeIn(manager)` and
 * returned while that transaction had not committed: it rolled back (the job's completion with it), or it was still
 * open. The attempt failed, and the job is retried (or failed for good) as the retry policy says. Had the transaction
 * still open committed afterwards, the job stays completed: the failure's write is fenced and changes nothing then.
 */
export class CompletionNotCommittedError extends QueueError {
  constructor(
    /** The job. */
    readonly jobId: string,
    /** Whether the transaction rolled back or was still open when the handler ended. */
    readonly reason: CompletionNotCommittedReason,
  ) {
    super(
      reason === 'rolled-back'
        ? `Job ${jobId} was completed in a transaction (job.completeIn) that rolled back: the completion was undone, so the attempt failed`
        : `Job ${jobId} was completed in a transaction (job.completeIn) that was still open when its handler ended: commit it (or roll it back) before the handler returns`,
    );
  }
}
