import { QueueError } from './queue.error';

/**
 * Recorded as the error of every job of a batch whose `process(jobs)` returned an array of another length than
 * `jobs`: which item belongs to which job cannot be told. The jobs fail for good, as for `InvalidJobResultError`:
 * the handler's work is done, and running it again would repeat its side effects.
 */
export class InvalidBatchResultError extends QueueError {
  constructor(
    /** The queue of the batch. */
    readonly queue: string,
    /** How many jobs the batch held. */
    readonly jobs: number,
    /** How many items the handler returned. */
    readonly items: number,
  ) {
    super(
      `The batch processor of queue "${queue}" returned ${items} item(s) for ${jobs} job(s): return one item per job, ` +
        'in the order of jobs, or a single value for all.',
    );
  }
}
