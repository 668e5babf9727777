import { QueueError } from './queue.error';

/** What became of the transaction `job.completeIn()` wrote into, by the time the handler ended. */
export type CompletionNotCommittedReason = 'rolled-back' | 'still-open';

/**
 * Recorded, never thrown to a handler (the stored error keeps its name and message, whose `(reason '…')` names `reason`): the error of an attempt whose handler called `job.completeIn(manager)` and
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
    // The message is what the job's stored error keeps (job.error, JobInfo.error, the failed event): it names the
    // reason as written here, so a reader of any of them can tell the two apart without this class.
    super(
      reason === 'rolled-back'
        ? `Job ${jobId} was completed in a transaction (job.completeIn) that rolled back (reason 'rolled-back'): the completion was undone, so the attempt failed`
        : `Job ${jobId} was completed in a transaction (job.completeIn) that was still open when its handler ended (reason 'still-open'): commit it (or roll it back) before the handler returns`,
    );
  }
}
