import { EntityManager } from 'typeorm';
import { Completion } from '../../queue-storage.interface';
import { dataSourceOfManager, transactionRunnerOf, TransactionStatements } from '../../transactions/transaction-statements';
import { CommitWatch } from '../../transactions/commit-watch';
import { CallerTransactionStorage } from '../../roles/caller-transaction-storage.interface';
import { completeJobs } from '../sql/outcomes.sql';
import { PostgresTransactions } from '../postgres-transaction';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { PostgresBackend } from './postgres-backend';

/**
 * `CallerTransactionStorage` on PostgreSQL: see the role's interface for each member. Its pool never runs a call inside
 * the caller's transaction unasked, so it has no `openTransactionOf`.
 */
export class PostgresCallerTransactionStorage implements CallerTransactionStorage {
  private readonly db: PostgresContext;
  private readonly transactions: PostgresTransactions;

  constructor(backend: Pick<PostgresBackend, 'db' | 'transactions'>) {
    this.db = backend.db;
    this.transactions = backend.transactions;
  }

  afterCommitOf(manager: EntityManager | undefined, callback: () => void, discarded?: () => void): void {
    // Without a manager the rows were committed by their own statement: nothing to wait for.
    if (!manager) callback();
    else CommitWatch.of(dataSourceOfManager(manager)).afterCommit(transactionRunnerOf(manager), callback, discarded);
  }

  async completeIn(manager: EntityManager, completion: Completion, workerId: string, now: number): Promise<boolean> {
    // The completion's NOTIFY (finished jobs) is part of the caller's transaction: delivered at its commit only.
    const runner = await this.transactions.runnerFor(manager);
    const completed = await completeJobs(
      { runner: new TransactionStatements(runner), tables: this.db.tables },
      [completion],
      workerId,
      now,
    );
    return completed.has(completion.ref.id);
  }
}
