import type { EntityManager, QueryRunner } from 'typeorm';
import { CallerTransaction, Completion } from '../../queue-storage.interface';
import { SqliteConnection } from '../sqlite-connection';
import { TransactionStatements, dataSourceOfManager } from '../../transactions/transaction-statements';
import { sqliteTransactionRunner } from '../../transactions/sqlite-transaction';
import { CommitWatch } from '../../transactions/commit-watch';
import { keepRolledBackIds } from '../sql/sequence.sql';
import { SqliteTransactionWatch } from '../../transactions/sqlite-transaction-watch';
import { CallerTransactionStorage } from '../../roles/caller-transaction-storage.interface';
import { completeJobs } from '../sql/outcomes.sql';
import { SqliteBackend } from './sqlite-backend';

/** `CallerTransactionStorage` on SQLite: see the role's interface for each member. */
export class SqliteCallerTransactionStorage implements CallerTransactionStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  openTransactionOf(manager?: EntityManager): CallerTransaction | undefined {
    if (manager === undefined) return this.db.callerTransaction();
    let runner: QueryRunner;
    try {
      runner = sqliteTransactionRunner(manager, this.db.source);
    } catch {
      // Not a transaction that can hold the queue's rows: `enqueueIn` refuses it with the typed error.
      return undefined;
    }
    return SqliteTransactionWatch.of(dataSourceOfManager(manager), keepRolledBackIds).transactionOf(runner);
  }

  afterCommitOf(manager: EntityManager | undefined, callback: () => void, discarded?: () => void): void {
    // Without a manager the rows went into the transaction open on the shared DataSource's one connection, whose
    // runner TypeORM's sqlite drivers hand out for every call (createQueryRunner returns the same one).
    const runner = manager ? sqliteTransactionRunner(manager, this.db.source) : this.db.source.createQueryRunner();
    CommitWatch.of(manager ? dataSourceOfManager(manager) : this.db.source).afterCommit(runner, callback, discarded);
  }

  async completeIn(manager: EntityManager, completion: Completion, workerId: string, now: number): Promise<boolean> {
    // A completion written to a deleted or replaced file would be lost with it.
    if (this.db.fault) throw this.db.fault;
    const runner = sqliteTransactionRunner(manager, this.db.source);
    const completed = await completeJobs(new TransactionStatements(runner), [completion], workerId, now);
    if (completed.size > 0) CommitWatch.of(dataSourceOfManager(manager)).afterCommit(runner, () => this.db.written());
    return completed.has(completion.ref.id);
  }
}
