import { QueueError } from './queue.error';

/**
 * The chosen SQLite driver does not exist in the installed TypeORM (TypeORM 1 removed `sqlite3`); `app.init()`
 * rejects with it before anything is opened. The message names the fix.
 */
export class UnsupportedDriverError extends QueueError {
  constructor(
    /** The driver that was asked for. */
    readonly driver: string,
    /** The installed TypeORM version. */
    readonly typeormVersion: string,
    /** The driver to use instead. */
    readonly suggestedDriver: string,
    /** The npm command that installs the suggested driver. */
    readonly install: string,
  ) {
    super(
      `SqliteQueueModule option "driver": '${driver}' is not supported by TypeORM ${typeormVersion}. ` +
        `Use driver: '${suggestedDriver}' (or leave "driver" out) and run \`${install}\`.`,
    );
  }
}
