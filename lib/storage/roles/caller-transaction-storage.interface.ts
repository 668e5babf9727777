import type { EntityManager } from 'typeorm';
import type { CallerTransaction } from '../transactions/caller-transaction';
import type { Completion } from '../storage-records';

/**
 * The narrow port between a caller's TypeORM transaction and the queue: "is this call inside the caller's
 * transaction" and "run this once that transaction commits". The producer uses it to hand back handles that know
 * their transaction's fate and to announce jobs only once they exist for others; the machinery behind it (TypeORM
 * subscribers, SQLite's one shared connection, savepoints) is in lib/storage/transactions/.
 */
export interface CallerTransactionStorage {
  /**
   * Where the storage shares one connection with the application (SQLite on a borrowed DataSource): the open
   * transaction that `manager`'s writes, or without one the writes of a call made now (in this async context), run
   * inside. Undefined when there is none: the call commits on its own. Absent where writes never join a caller's
   * transaction unasked (PostgreSQL's pool) and ids are never given twice.
   */
  openTransactionOf?(manager?: EntityManager): CallerTransaction | undefined;
  /**
   * Runs `callback` once the caller's transaction that holds rows just written commits: `manager`'s, or without one
   * the open transaction of `openTransactionOf`. Never when that transaction, or the savepoint the rows went into,
   * rolls back: then `discarded`, if given, runs instead. Called right after the write, in the caller's context.
   */
  afterCommitOf(manager: EntityManager | undefined, callback: () => void, discarded?: () => void): void;
  /**
   * Completes one attempt inside `manager`'s open transaction (`job.completeIn`): the same statement, fence and
   * result as an outcome write's completion, so the job is completed if and only if that transaction commits. True
   * when the attempt was still this worker's (running, `locked_by` and attempt number matching), false when the
   * statement changed nothing. Throws UnsupportedTransactionError, writing nothing, for a manager that is no open
   * transaction or is on another database than the queue's.
   */
  completeIn(manager: EntityManager, completion: Completion, workerId: string, now: number): Promise<boolean>;
}
