import { QueueError } from './queue.error';

/** A schedule that cannot work: bad cron expression, bad `every`, unknown time zone, bad name or data. Nothing is written. */
export class InvalidScheduleError extends QueueError {
  constructor(
    /** The schedule's queue. */
    readonly queue: string,
    /** The schedule's name, as given. */
    readonly scheduleName: unknown,
    reason: string,
  ) {
    super(
      `Invalid schedule ${typeof scheduleName === 'string' ? `"${scheduleName}"` : ''} for queue "${queue}": ${reason}. Nothing was written.`,
    );
  }
}
