import { isTransientStorageError } from './codes/transient-error';
import { StorageFailureKind, explainStorageFailure, storageErrorText, storageFailureKind } from './codes/storage-failure';
import { QueueError } from './queue.error';

/**
 * The database failed a `QueueProducer` or `QueueAdmin` call at run time (busy past the busy timeout, connection
 * lost, disk full...). The driver's error (TypeORM's QueryFailedError, better-sqlite3's SqliteError, pg's
 * DatabaseError) is its `cause`; `kind` and `transient` say what it means. The library's own typed errors
 * (InvalidJobStateError, JobKeyConflictError...) are thrown as they are, never wrapped.
 */
export class StorageError extends QueueError {
  /** What went wrong, as far as the driver's error tells. */
  readonly kind: StorageFailureKind;
  /** True when trying again later may succeed (busy or locked database, lost connection). */
  readonly transient: boolean;

  constructor(
    /** The call that failed, e.g. `QueueProducer.add`. */
    readonly operation: string,
    /** What it was about, e.g. `queue "emails"`, when known. */
    readonly subject: string | undefined,
    cause: unknown,
  ) {
    const kind = storageFailureKind(cause);
    const transient = isTransientStorageError(cause);
    const about = subject === undefined ? '' : ` (${subject})`;
    const meaning =
      kind !== 'other' ? `${explainStorageFailure(kind)}: ` : transient ? 'the database is busy or unreachable for now: ' : '';
    super(`${operation}${about} failed in the database: ${meaning}${storageErrorText(cause)}`, { cause });
    this.kind = kind;
    this.transient = transient;
  }
}

/** The error to throw at the public boundary: the library's own errors as they are, driver errors wrapped. */
export function asStorageError(error: unknown, operation: string, subject?: string): unknown {
  return error instanceof QueueError ? error : new StorageError(operation, subject, error);
}
