import { QueueError } from './queue.error';

/** Why a running process stopped using its SQLite file. */
export type DatabaseFaultKind = 'deleted' | 'replaced' | 'corrupt';

/**
 * The queue's SQLite file was deleted or replaced while the application ran, or SQLite found it corrupted: this
 * process stopped claiming, its health indicator reports `down`, and `add()` / `addBulk()` throw this error
 * (writing nothing) instead of writing jobs nobody would see. Names the file and what to do; needs a restart
 * once the file is repaired or restored. `cause` is the driver's error where there was one.
 */
export class DatabaseUnavailableError extends QueueError {
  constructor(
    /** The database file. */
    readonly path: string,
    /** What happened to it. */
    readonly kind: DatabaseFaultKind,
    cause?: unknown,
  ) {
    super(`The queue database file "${path}" ${explain(kind)}`, cause === undefined ? undefined : { cause });
  }
}

function explain(kind: DatabaseFaultKind): string {
  switch (kind) {
    case 'deleted':
      return (
        'was deleted while the application ran: this process stopped claiming and refuses new jobs (they would be ' +
        'lost at restart); restore the file from a backup, or restart to begin with an empty queue'
      );
    case 'replaced':
      return (
        'was replaced by another file while the application ran: this process stopped claiming and refuses new ' +
        'jobs (it still has the old file open); restart every process using the queue'
      );
    case 'corrupt':
      return (
        'is corrupted: this process stopped claiming and refuses new jobs. Stop every process using it, run ' +
        '`PRAGMA integrity_check` on it with the sqlite3 tool, and restore it from a backup (or recover it with `.recover`)'
      );
  }
}
