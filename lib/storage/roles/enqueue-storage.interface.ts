import type { EntityManager } from 'typeorm';
import type { JobRecord, NewFlowNode, NewJobRecord, TransactionFate } from '../storage-records';

/** Writing new jobs: one queue's jobs, a flow's tree, in the caller's transaction or on their own (`QueueProducer`). */
export interface EnqueueStorage {
  /**
   * Inserts jobs of one queue atomically and returns one record per input, in input order. An input
   * whose key is taken by a pending or running job returns that job instead.
   */
  enqueue(queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /**
   * `enqueue` written by the caller's TypeORM transaction (`manager` of `dataSource.transaction()`): invisible until
   * it commits, gone if it rolls back; pollers are woken at commit. Throws UnsupportedTransactionError (writing
   * nothing) when that transaction cannot write this queue's tables atomically (another database, another file).
   */
  enqueueIn(manager: EntityManager, queue: string, jobs: NewJobRecord[], now: number): Promise<JobRecord[]>;
  /** Inserts a flow's nodes in one atomic write (in `manager`'s transaction when given); their ids, in node order. */
  enqueueFlow(nodes: NewFlowNode[], now: number, manager?: EntityManager): Promise<string[]>;
  /**
   * Where the storage shares one connection with the application (SQLite on a borrowed DataSource): the open
   * transaction that `manager`'s writes, or without one the writes of a call made now (in this async context), run
   * inside. Undefined when there is none: the call commits on its own. Absent where writes never join a caller's
   * transaction unasked (PostgreSQL's pool) and ids are never given twice.
   */
  openTransactionOf?(manager?: EntityManager): TransactionFate | undefined;
  /**
   * Runs `callback` once the caller's transaction that holds rows just written commits: `manager`'s, or without one
   * the open transaction of `openTransactionOf`. Never when that transaction, or the savepoint the rows went into,
   * rolls back. Called right after the write, in the caller's context.
   */
  afterCommitOf(manager: EntityManager | undefined, callback: () => void): void;
  /**
   * How many inserts of one queue the producer's group commit keeps in flight at once (default 1): one where the
   * database has a single writer, more where statements run side by side and their commits' disk flushes overlap.
   */
  readonly parallelInserts?: number;
}
