/**
 * How boot waits for the migration lock that another process holds, the same on both backends: up to the
 * `migrationLockTimeout` option, with one log line once it waits, then `MigrationLockTimeoutError`.
 */

/** Where the one line saying that boot waits goes (Nest's Logger fits). */
export interface MigrationLockLogger {
  log(message: string): void;
}

/** How long boot waits for another process's migration, and what for. */
export interface MigrationLockWait {
  /** Most ms to wait for the lock: the `migrationLockTimeout` module option. 0: do not wait. */
  readonly timeoutMs: number;
  /** What the lock guards, for the log line and the error: `file "queue.sqlite"`, `schema "nest_queue"`. */
  readonly target: string;
  readonly logger: MigrationLockLogger;
}

/** The line logged once boot waits for the lock. */
export function waitingForMigrationLine(wait: MigrationLockWait): string {
  return (
    `Schema of ${wait.target}: waiting for another process's migration (its lock is held; ` +
    `giving up after ${wait.timeoutMs} ms, migrationLockTimeout)`
  );
}
