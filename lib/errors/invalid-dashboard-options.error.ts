import { QueueError } from './queue.error';

/** `QueueDashboardModule.forRoot()` options that cannot work; thrown by `forRoot` itself, before anything is mounted. */
export class InvalidDashboardOptionsError extends QueueError {
  constructor(
    /** The offending option name. */
    readonly option: string,
    reason: string,
  ) {
    super(`Invalid QueueDashboardModule option "${option}": ${reason}`);
  }
}
