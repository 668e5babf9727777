import { StorageFailureKind, explainStorageFailure, storageErrorText, storageFailureKind } from './codes/storage-failure';
import { QueueError } from './queue.error';

/**
 * `app.init()` could not open the queue's database, or could not write to it: names the SQLite file or the
 * PostgreSQL server, and the likely cause (`kind`). The driver's error is the `cause`.
 */
export class DatabaseOpenError extends QueueError {
  /** What went wrong, as far as the driver's error tells. */
  readonly kind: StorageFailureKind;

  constructor(
    /** The SQLite file path or the PostgreSQL server (`host:port/database`). */
    readonly target: string,
    cause: unknown,
  ) {
    const kind = storageFailureKind(cause);
    super(`Cannot open the queue database ${target}: ${explainStorageFailure(kind)} (${storageErrorText(cause)})`, { cause });
    this.kind = kind;
  }
}
