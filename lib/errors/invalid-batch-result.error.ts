import { QueueError } from './queue.error';

/**
 * Recorded as the error of every job of a batch whose `process(jobs)` returned an array of another length than
 * `jobs` (which item belongs to which job cannot be told), and of a job whose place in an array of the right length
 * is a hole (`new Array(n)` with that index never assigned: the handler gave it nothing, not even `undefined`). The
 * jobs fail for good, as for `InvalidJobResultError`: the handler's work is done, and running it again would repeat
 * its side effects.
 */
export class InvalidBatchResultError extends QueueError {
  constructor(
    /** The queue of the batch. */
    readonly queue: string,
    /** How many jobs the batch held. */
    readonly jobs: number,
    /** How many items the handler returned. */
    readonly items: number,
    /** With an array of the right length: the index of the hole where this job's item should be. */
    readonly hole?: number,
  ) {
    super(
      hole === undefined
        ? `The batch processor of queue "${queue}" returned ${items} item(s) for ${jobs} job(s): return one item per job, ` +
            'in the order of jobs, or a single value for all.'
        : `The batch processor of queue "${queue}" returned an array with a hole at index ${hole} (no item for that job): ` +
            'give every job its item (an explicit undefined completes it with no result).',
    );
  }
}
