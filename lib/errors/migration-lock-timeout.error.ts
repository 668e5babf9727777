import { QueueError } from './queue.error';

/**
 * Boot had to check or migrate the schema, and another process held the migration lock (SQLite's write lock,
 * PostgreSQL's advisory lock per schema) for the whole of `migrationLockTimeout`: `app.init()` rejects, having
 * written nothing. Usually a long migration of a large database (start again, or raise the option), or a
 * transaction some other program left open on the database. The driver's last error, if any, is the `cause`.
 */
export class MigrationLockTimeoutError extends QueueError {
  constructor(
    /** The SQLite file (`file "..."`) or PostgreSQL schema (`schema "..."`) whose lock was waited for. */
    readonly target: string,
    /** How long boot waited, in ms: the `migrationLockTimeout` option. */
    readonly timeoutMs: number,
    cause?: unknown,
  ) {
    super(
      `Waited for another process's schema migration of ${target} and gave up after ${timeoutMs} ms (migrationLockTimeout): ` +
        'another process held the migration lock the whole time (a migration of a large database, or a transaction left ' +
        'open on it). Start again once it is done, or raise migrationLockTimeout.',
      cause === undefined ? undefined : { cause },
    );
  }
}
