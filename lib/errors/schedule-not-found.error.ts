import { QueueError } from './queue.error';

/** An operation on a recurring job (`QueueAdmin.runScheduleNow()`, ...) that names no schedule. Nothing was written. */
export class ScheduleNotFoundError extends QueueError {
  constructor(
    /** The queue named. */
    readonly queue: string,
    /** The schedule's name. */
    readonly schedule: string,
  ) {
    super(`No schedule "${schedule}" in queue "${queue}": see QueueProducer.listSchedules() for the schedules that exist`);
  }
}
