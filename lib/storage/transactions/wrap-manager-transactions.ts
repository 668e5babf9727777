import type { EntityManager } from 'typeorm';

/**
 * Makes `manager.transaction(...)` (and so `dataSource.transaction(...)`, which calls it) run inside `around`, on
 * this one manager object: TypeORM offers no hook that runs the transaction's callback, and the module must know
 * which async context is the callback's (see SqliteTransactionWatch). Arguments, result and errors are TypeORM's.
 */
export function wrapManagerTransactions(manager: EntityManager, around: <T>(work: () => T) => T): void {
  const transaction = manager.transaction;
  const wrapped = function (this: EntityManager, ...args: unknown[]): unknown {
    return around(() => (transaction as (...a: unknown[]) => unknown).apply(this, args));
  };
  Object.defineProperty(manager, 'transaction', { value: wrapped, configurable: true, writable: true });
}
