import { Logger } from '@nestjs/common';
import type { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import { StatementRunner } from '../shared/statement-runner';
import { TransactionStatements } from './transaction-statements';
import { wrapManagerTransactions } from './wrap-manager-transactions';
import {
  WatchedTransaction,
  enterTransactionContext,
  pendingTransactionOf,
  runInTransactionContext,
  runsInside,
} from './sqlite-watched-transaction';

/** Raises the jobs table's AUTOINCREMENT sequence to at least `highestId`, in the statements of `runner`. */
export type IdKeeper = (runner: StatementRunner, highestId: number) => Promise<void>;

/** What the watch closes before BEGIN and opens after COMMIT or ROLLBACK (the TransactionGate). */
export interface Gate {
  close(): Promise<void>;
  open(): void;
}

/**
 * Follows the transactions of one SQLite DataSource through a TypeORM subscriber (public API: `dataSource.subscribers`).
 * TypeORM's sqlite drivers have ONE connection per DataSource, so one transaction at a time: `active`.
 *
 * - With a gate (the module shares the application's DataSource), keeps the module's statements out of the
 *   application's transactions: a claim sent while the transaction is open would run inside it, could take a job
 *   that the transaction then rolls back, and would be undone with it; an `add` made by other code beside it would
 *   resolve with a job that the rollback then deletes. The gate lets the statements in flight finish before BEGIN,
 *   and holds new ones until COMMIT or ROLLBACK, except the calls made inside the transaction (its callback's async
 *   context, see watched-transaction.ts), which run in it as they always did.
 * - After a rollback, raises the jobs table's AUTOINCREMENT sequence above the ids handed out inside it (a rollback
 *   rolls `sqlite_sequence` back too), and tells the handles of its jobs, so a stale id never names a newer job.
 */
export class SqliteTransactionWatch implements EntitySubscriberInterface {
  private gate?: Gate;
  /** The application's transaction open on the connection (its outermost one; SAVEPOINTs nest inside it). */
  private active?: WatchedTransaction;
  private readonly logger = new Logger('JobQueue');

  private constructor(
    private readonly dataSource: DataSource,
    private readonly keepRolledBackIds: IdKeeper,
  ) {}

  /**
   * The one watch of `dataSource`, registered on first use; `keepRolledBackIds` raises the jobs table's sequence
   * (the backend's SQL, given by the SQLite storage).
   */
  static of(dataSource: DataSource, keepRolledBackIds: IdKeeper): SqliteTransactionWatch {
    let watch = watches.get(dataSource);
    if (!watch) {
      watch = new SqliteTransactionWatch(dataSource, keepRolledBackIds);
      dataSource.subscribers.push(watch);
      watches.set(dataSource, watch);
    }
    return watch;
  }

  /**
   * Installs the gate that keeps the module's statements out of the application's transactions, and makes
   * `dataSource.transaction(callback)` run its callback in a context of its own, so calls made beside it (in the code
   * after the call that started it, say) are told from calls made inside it.
   */
  setGate(gate: Gate): void {
    if (!this.gate) wrapManagerTransactions(this.dataSource.manager, (work) => this.runTransaction(work));
    this.gate = gate;
  }

  /**
   * The open transaction of `runner` (one opened before this watch was registered is followed from now on).
   * Undefined when none is open.
   */
  transactionOf(runner: QueryRunner): WatchedTransaction | undefined {
    if (!this.active && runner.isTransactionActive) {
      this.active = new WatchedTransaction(this);
      this.active.open();
    }
    return this.active;
  }

  /** The open transaction when the current async context runs inside it; undefined for a call made beside it. */
  callerTransaction(): WatchedTransaction | undefined {
    const active = this.active;
    return active !== undefined && runsInside(active) ? active : undefined;
  }

  /** Awaited by TypeORM before it sends BEGIN (or a SAVEPOINT, which needs nothing). */
  beforeTransactionStart(): Promise<void> | void {
    if (this.active) {
      // A SAVEPOINT of the open transaction, or a second transaction begun beside it, which TypeORM nests into it on
      // the one connection: either way its statements run in the open transaction, and its calls must not wait for it.
      enterTransactionContext(this.active);
      return;
    }
    let transaction = pendingTransactionOf(this);
    if (!transaction) {
      // `queryRunner.startTransaction()` (no callback of ours): the code after it is its context.
      transaction = new WatchedTransaction(this);
      enterTransactionContext(transaction);
    }
    transaction.open();
    this.active = transaction;
    return this.gate?.close();
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (event.queryRunner.isTransactionActive) return;
    this.end('committed');
    this.gate?.open();
  }

  /** Awaited by TypeORM: the sequence is raised before the gate lets anything else write. */
  async afterTransactionRollback(event: TransactionRollbackEvent): Promise<void> {
    if (event.queryRunner.isTransactionActive) {
      // Back to a SAVEPOINT: `sqlite_sequence` went back with it, so the next insert of the same transaction would be
      // given the id of a job the savepoint undid, and that job's handle would name the new one.
      await this.keepIds(event.queryRunner, this.active?.highestId ?? 0);
      return;
    }
    const ended = this.end('rolled-back');
    try {
      await this.keepIds(event.queryRunner, ended?.highestId ?? 0);
    } finally {
      this.gate?.open();
    }
  }

  /** Raises the jobs table's sequence to `highestId` (0: no job written), so no id handed out is given again. */
  private async keepIds(runner: QueryRunner, highestId: number): Promise<void> {
    if (highestId <= 0) return;
    try {
      await this.keepRolledBackIds(new TransactionStatements(runner), highestId);
    } catch (error) {
      // The handles of its jobs already know; only an id read elsewhere (a log line) could name a later job.
      this.logger.warn(
        `Could not keep the ids of jobs rolled back with their transaction (up to ${highestId}) from being given again: ${String(error)}`,
      );
    }
  }

  /** `dataSource.transaction()`: its work (BEGIN, the callback, COMMIT) in a context inside a transaction of its own. */
  private runTransaction<T>(work: () => T): T {
    if (this.active && runsInside(this.active)) return work();
    return runInTransactionContext(new WatchedTransaction(this), work);
  }

  private end(outcome: 'committed' | 'rolled-back'): WatchedTransaction | undefined {
    const ended = this.active;
    this.active = undefined;
    ended?.end(outcome);
    return ended;
  }
}

const watches = new WeakMap<DataSource, SqliteTransactionWatch>();
