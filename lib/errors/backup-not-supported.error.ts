import { QueueError } from './queue.error';

/**
 * `QueueAdmin.backup()` on PostgreSQL: the server's own tools make consistent copies of a live database
 * (`pg_dump --schema=<queue schema>`, or the server's base backups); the library does not duplicate them.
 */
export class BackupNotSupportedError extends QueueError {
  constructor(
    /** The queue's PostgreSQL schema. */
    readonly schema: string,
  ) {
    super(`QueueAdmin.backup() copies SQLite files only: back up the PostgreSQL schema "${schema}" with pg_dump --schema=${schema}`);
  }
}
