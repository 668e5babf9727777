import { QueueError } from './queue.error';

/** Why a transaction was refused for a transactional enqueue. */
export type UnsupportedTransactionReason = 'not-a-transaction' | 'other-database';

/**
 * `add`/`addBulk`/`addFlow` were given a `manager` whose transaction cannot write the queue's jobs atomically
 * with the caller's own changes: it is no open transaction (`dataSource.manager` instead of the `manager` that
 * `dataSource.transaction()` hands out), or it is a DataSource of another database (another SQLite file, another
 * PostgreSQL database or server, another driver). Nothing is written.
 */
export class UnsupportedTransactionError extends QueueError {
  constructor(
    /** What is wrong with the transaction. */
    readonly reason: UnsupportedTransactionReason,
    detail: string,
  ) {
    super(`Cannot enqueue in this transaction (${reason}): ${detail}`);
  }
}
