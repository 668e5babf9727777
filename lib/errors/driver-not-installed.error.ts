import { QueueError } from './queue.error';

/**
 * The database driver package the module needs (`sqlite3`, `better-sqlite3` or `pg`) cannot be loaded from the
 * application; `app.init()` rejects with it before anything is opened. The message names the install command.
 */
export class DriverNotInstalledError extends QueueError {
  constructor(
    /** The npm package that is missing. */
    readonly packageName: string,
    /** The npm command that installs it. */
    readonly install: string,
  ) {
    super(`The queue needs the "${packageName}" package, which is not installed. Run \`${install}\`.`);
  }
}
