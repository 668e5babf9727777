import { QueueError } from './queue.error';

/**
 * A tool of the library (the CLI, `promote`) was pointed at a SQLite file that does not exist. Opening it would
 * create an empty database, so it is refused and nothing is created.
 */
export class DatabaseFileMissingError extends QueueError {
  constructor(
    /** The path as given. */
    readonly path: string,
  ) {
    super(`The queue database file ${path} does not exist (nothing was created): check the path`);
  }
}
