import { AsyncLocalStorage } from 'node:async_hooks';
import { CallerTransaction } from './caller-transaction';

/** Where a transaction is in its life. */
type TransactionState = 'pending' | 'open' | 'committed' | 'rolled-back';

/**
 * One application transaction on a SQLite DataSource the module follows (see SqliteTransactionWatch): whether it is
 * open, how it ended, and the highest job id the module handed out inside it (a rollback gives those ids back to
 * SQLite's sequence, see `keepRolledBackIds`).
 */
export class WatchedTransaction implements CallerTransaction {
  private state: TransactionState = 'pending';
  private listeners?: Set<() => void>;
  /** The highest job id written inside it by the module (0: none). */
  highestId = 0;

  /** @param owner the watch whose DataSource runs it (a pending one is claimed by that watch's BEGIN only). */
  constructor(readonly owner: object) {}

  get pending(): boolean {
    return this.state === 'pending';
  }

  get rolledBack(): boolean {
    return this.state === 'rolled-back';
  }

  onRollback(listener: () => void): () => void {
    if (this.state === 'rolled-back') {
      listener();
      return () => undefined;
    }
    if (this.state === 'committed') return () => undefined;
    (this.listeners ??= new Set()).add(listener);
    return () => this.listeners?.delete(listener);
  }

  /** Records ids the module wrote inside the transaction. */
  noteIds(ids: readonly string[]): void {
    for (const id of ids) if (Number(id) > this.highestId) this.highestId = Number(id);
  }

  /** BEGIN is about to be sent. */
  open(): void {
    this.state = 'open';
  }

  /** COMMIT or ROLLBACK returned; a rollback tells the handles of its jobs. */
  end(outcome: 'committed' | 'rolled-back'): void {
    this.state = outcome;
    const listeners = this.listeners;
    this.listeners = undefined;
    if (outcome === 'rolled-back') listeners?.forEach((listener) => listener());
  }
}

/**
 * The transactions the current async context runs inside, innermost last: set for the callback of
 * `dataSource.transaction()` (and what it starts), and for the code after `queryRunner.startTransaction()`. A call
 * made in such a context belongs to the transaction; any other call is made beside it.
 */
const context = new AsyncLocalStorage<readonly WatchedTransaction[]>();

/** Whether the current async context runs inside `transaction`. */
export function runsInside(transaction: WatchedTransaction): boolean {
  const store = context.getStore();
  return store !== undefined && store.includes(transaction);
}

/** The transaction of this context that `owner`'s next BEGIN opens, if `runInTransactionContext` made one. */
export function pendingTransactionOf(owner: object): WatchedTransaction | undefined {
  const store = context.getStore();
  const innermost = store?.[store.length - 1];
  return innermost?.pending && innermost.owner === owner ? innermost : undefined;
}

/** Runs `work` in a context inside `transaction` too; the caller's context is left as it was. */
export function runInTransactionContext<T>(transaction: WatchedTransaction, work: () => T): T {
  return context.run([...(context.getStore() ?? []), transaction], work);
}

/**
 * Puts the rest of the current context inside `transaction` (a transaction begun with `queryRunner.startTransaction()`,
 * whose code is not a callback the module can run in a context of its own). It also reaches whatever this
 * synchronous stretch starts afterwards: see the README on what is detected.
 */
export function enterTransactionContext(transaction: WatchedTransaction): void {
  if (runsInside(transaction)) return;
  context.enterWith([...(context.getStore() ?? []), transaction]);
}
