import { EntityManager } from 'typeorm';
import { dataSourceOfManager, transactionRunnerOf } from '../../transactions/transaction-statements';
import { CommitWatch } from '../../transactions/commit-watch';
import { CallerTransactionStorage } from '../../roles/caller-transaction-storage.interface';

/**
 * `CallerTransactionStorage` on PostgreSQL: see the role's interface for each member. Its pool never runs a call inside
 * the caller's transaction unasked, so it has no `openTransactionOf`, and needs nothing of the backend.
 */
export class PostgresCallerTransactionStorage implements CallerTransactionStorage {
  afterCommitOf(manager: EntityManager | undefined, callback: () => void, discarded?: () => void): void {
    // Without a manager the rows were committed by their own statement: nothing to wait for.
    if (!manager) callback();
    else CommitWatch.of(dataSourceOfManager(manager)).afterCommit(transactionRunnerOf(manager), callback, discarded);
  }
}
