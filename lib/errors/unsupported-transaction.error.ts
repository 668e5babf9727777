import { QueueError } from './queue.error';

/** Why a transaction was refused for a transactional enqueue or completion. */
export type UnsupportedTransactionReason = 'not-a-transaction' | 'other-database';

/** What the transaction was refused for: `add`/`addBulk`/`addFlow` with `manager`, or `job.completeIn(manager)`. */
export type TransactionalCall = 'enqueue' | 'complete';

/**
 * `add`/`addBulk`/`addFlow` were given a `manager`, or `job.completeIn()` was called with one, whose transaction
 * cannot write the queue's jobs atomically with the caller's own changes: it is no open transaction
 * (`dataSource.manager` instead of the `manager` that `dataSource.transaction()` hands out, or a transaction that
 * already ended), or it is a DataSource of another database (another SQLite file, another PostgreSQL database or
 * server, another driver). Nothing is written.
 */
export class UnsupportedTransactionError extends QueueError {
  constructor(
    /** What is wrong with the transaction. */
    readonly reason: UnsupportedTransactionReason,
    /** What exactly: the two databases, or what the manager is. */
    readonly detail: string,
    /** What the transaction was refused for (`enqueue` unless said). */
    readonly call: TransactionalCall = 'enqueue',
  ) {
    super(`Cannot ${call === 'enqueue' ? 'enqueue' : 'complete a job'} in this transaction (${reason}): ${detail}`);
  }
}
