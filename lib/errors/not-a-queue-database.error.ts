import { QueueError } from './queue.error';

/**
 * A tool of the library (the CLI, `promote`) opened a database that holds no queue tables: a SQLite file of
 * something else, an empty file, or a PostgreSQL schema without the queue. Nothing is written to it.
 */
export class NotAQueueDatabaseError extends QueueError {
  constructor(
    /** The SQLite file, or the PostgreSQL schema. */
    readonly target: string,
  ) {
    super(`${target} is not a queue database: it holds no queue tables (check the path or --schema; \`migrate\` creates them)`);
  }
}
