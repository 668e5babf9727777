import { QueueError } from './queue.error';

/** `SqliteQueueModule.forRoot()` / `forRootAsync()` options that cannot work; `app.init()` rejects with it. */
export class InvalidModuleOptionsError extends QueueError {
  constructor(
    /** The offending option name. */
    readonly option: string,
    reason: string,
  ) {
    super(`Invalid SqliteQueueModule option "${option}": ${reason}`);
  }
}
