import { QueueStorage } from '../../lib/storage/queue-storage.interface';
import { storageBackendOf } from '../../lib/storage/shared/assemble-storage';
import { StatementOptions, StatementRunner } from '../../lib/storage/shared/statement-runner';

/** Both backends keep their connection as `db` and send every statement of their own through `db.runner`. */
type WithRunner = { db: { runner: StatementRunner } };

/**
 * Makes every statement `storage` sends be followed, before its caller sees the result, by `between(index)` (0 for
 * the first statement after the call). Statements sent from inside `between` pass straight through, so it may use
 * `storage` itself (a claim, a look-up). Returns the function that removes the hook.
 *
 * Used to put another actor's move (a claim, a check) between two statements of an admin call, deterministically.
 */
export function betweenStatements(storage: QueueStorage, between: (index: number) => Promise<unknown>): () => void {
  const runner = (storageBackendOf(storage) as WithRunner).db.runner;
  const { all, run } = runner;
  let index = 0;
  let inside = false;
  const hooked =
    <T>(send: (sql: string, params: unknown[], options?: StatementOptions) => Promise<T>) =>
    async (sql: string, params: unknown[], options?: StatementOptions): Promise<T> => {
      const result = await send.call(runner, sql, params, options);
      if (inside) return result;
      inside = true;
      try {
        await between(index++);
      } finally {
        inside = false;
      }
      return result;
    };
  runner.all = hooked(all);
  runner.run = hooked(run);
  return () => {
    runner.all = all;
    runner.run = run;
  };
}
