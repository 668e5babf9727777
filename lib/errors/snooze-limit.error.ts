import { QueueError } from './queue.error';

/** The error a job fails with when its handler snoozed it more than the module's `maxSnoozes` times. */
export class SnoozeLimitError extends QueueError {
  constructor(
    /** The job. */
    readonly jobId: string,
    /** The bound it crossed (module option `maxSnoozes`). */
    readonly maxSnoozes: number,
  ) {
    super(`Job ${jobId} was snoozed ${maxSnoozes} times, the most the module allows (maxSnoozes); failing it`);
  }
}
