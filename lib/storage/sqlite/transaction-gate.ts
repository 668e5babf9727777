import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner } from '../shared/statement-runner';

/**
 * The module's background statements on a connection it shares with the application (see SqliteTransactionWatch):
 * they run at once unless the application has a transaction open, and then wait for its end. `close` resolves
 * once the statements already sent have finished, so none of them can land inside the transaction.
 */
export class TransactionGate implements StatementRunner {
  private inFlight = 0;
  private closed = false;
  private drained: (() => void)[] = [];
  private reopened: (() => void)[] = [];

  constructor(private readonly inner: StatementRunner) {}

  all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return this.pass(() => this.inner.all(sql, params));
  }

  run(sql: string, params: unknown[]): Promise<number> {
    return this.pass(() => this.inner.run(sql, params));
  }

  /** Holds new statements and resolves when those in flight are done. */
  close(): Promise<void> {
    this.closed = true;
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Lets held statements go. */
  open(): void {
    this.closed = false;
    this.reopened.splice(0).forEach((resolve) => resolve());
  }

  private async pass<T>(statement: () => Promise<T>): Promise<T> {
    while (this.closed) await new Promise<void>((resolve) => this.reopened.push(resolve));
    this.inFlight++;
    try {
      return await statement();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve());
    }
  }
}
