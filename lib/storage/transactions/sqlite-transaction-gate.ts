import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner } from '../shared/statement-runner';

/**
 * The module's statements on a connection it shares with the application (see SqliteTransactionWatch): they run at
 * once unless the application has a transaction open, and then wait for its end. `close` resolves once the
 * statements already sent have finished, so none of them can land inside the transaction.
 *
 * Two doors: the gate itself (`all`, `run`) for the statements the module makes on its own (claims, outcomes,
 * heartbeats, schedules, retention), which never join the application's transaction; and `callers`, for the calls
 * the application makes (`add`, `QueueAdmin`, `job.updateProgress`), which run at once when `insideTransaction`
 * says the call was made inside the open transaction (waiting would wait for the caller itself), and wait otherwise.
 */
export class TransactionGate implements StatementRunner {
  private inFlight = 0;
  private closed = false;
  private drained: (() => void)[] = [];
  private reopened: (() => void)[] = [];

  /** The door of the application's own calls. */
  readonly callers: StatementRunner = {
    all: (sql, params) => this.pass(() => this.inner.all(sql, params), true),
    run: (sql, params) => this.pass(() => this.inner.run(sql, params), true),
  };

  constructor(
    private readonly inner: StatementRunner,
    private readonly insideTransaction: () => boolean = () => false,
  ) {}

  all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return this.pass(() => this.inner.all(sql, params), false);
  }

  run(sql: string, params: unknown[]): Promise<number> {
    return this.pass(() => this.inner.run(sql, params), false);
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

  private async pass<T>(statement: () => Promise<T>, mayJoin: boolean): Promise<T> {
    // Asked only while a transaction is open: the common case costs one flag test.
    while (this.closed && !(mayJoin && this.insideTransaction())) await new Promise<void>((resolve) => this.reopened.push(resolve));
    this.inFlight++;
    try {
      return await statement();
    } finally {
      this.inFlight--;
      if (this.inFlight === 0) this.drained.splice(0).forEach((resolve) => resolve());
    }
  }
}
