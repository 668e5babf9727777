import type { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';

/**
 * Follows the transactions of one SQLite DataSource through a TypeORM subscriber (public API: `dataSource.subscribers`).
 *
 * - Runs callbacks when the outermost transaction of a query runner commits (and drops them on rollback): jobs a
 *   transaction enqueued wake the poller at commit, not at insert time.
 * - With a gate (the module shares the application's DataSource), keeps the module's own background statements
 *   (claims, outcomes, heartbeats) out of the application's transactions. TypeORM's sqlite drivers have ONE
 *   connection: a claim sent while the application's transaction is open would run inside it, could take a job
 *   that the transaction then rolls back, and would be undone with it. The gate lets the statements in flight
 *   finish before BEGIN is sent, and holds new ones until COMMIT or ROLLBACK.
 */
export class SqliteTransactionWatch implements EntitySubscriberInterface {
  private readonly onCommit = new WeakMap<QueryRunner, (() => void)[]>();
  private gate?: { close(): Promise<void>; open(): void };
  /** The gate is closed for a transaction: nested ones (SAVEPOINTs) find it so. One connection, one at a time. */
  private inTransaction = false;

  private constructor() {}

  /** The one watch of `dataSource`, registered on first use. */
  static of(dataSource: DataSource): SqliteTransactionWatch {
    let watch = watches.get(dataSource);
    if (!watch) {
      watch = new SqliteTransactionWatch();
      dataSource.subscribers.push(watch);
      watches.set(dataSource, watch);
    }
    return watch;
  }

  /** Runs `callback` when the outermost transaction open on `runner` commits. */
  afterCommit(runner: QueryRunner, callback: () => void): void {
    const callbacks = this.onCommit.get(runner);
    if (callbacks) callbacks.push(callback);
    else this.onCommit.set(runner, [callback]);
  }

  /** Installs the gate that keeps background statements out of the application's transactions. */
  setGate(gate: { close(): Promise<void>; open(): void }): void {
    this.gate = gate;
  }

  /** Awaited by TypeORM before it sends BEGIN (or a SAVEPOINT, which needs nothing). */
  async beforeTransactionStart(): Promise<void> {
    if (this.inTransaction || !this.gate) return;
    this.inTransaction = true;
    await this.gate.close();
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (event.queryRunner.isTransactionActive) return;
    this.reopen();
    const callbacks = this.onCommit.get(event.queryRunner);
    this.onCommit.delete(event.queryRunner);
    callbacks?.forEach((callback) => callback());
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (event.queryRunner.isTransactionActive) return;
    this.reopen();
    this.onCommit.delete(event.queryRunner);
  }

  private reopen(): void {
    if (!this.inTransaction) return;
    this.inTransaction = false;
    this.gate?.open();
  }
}

const watches = new WeakMap<DataSource, SqliteTransactionWatch>();
