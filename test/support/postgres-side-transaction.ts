import { DataSource, QueryRunner } from 'typeorm';
import { JOBS_TABLE } from '../../lib/table-names.constants';
import type { ConnectionOptions } from './backends';
import { waitFor } from './wait-for';

/** A transaction on a connection of its own, beside the module's, on a test's PostgreSQL schema. */
export interface SideTransaction {
  /** The schema's jobs table, quoted for SQL. */
  readonly jobs: string;
  /** Runs a statement inside the open transaction. */
  query(sql: string, params?: unknown[]): Promise<unknown>;
  /**
   * Resolves once a statement on the schema waits for a row lock (this transaction's, in these tests), or once
   * `work` settled without waiting (code that ignores the transaction: the test then shows what it did).
   */
  untilWaitedOn(work: Promise<unknown>): Promise<void>;
  /** COMMIT or ROLLBACK. */
  end(how: 'COMMIT' | 'ROLLBACK'): Promise<void>;
  /** Ends the transaction if still open and closes the connections. */
  close(): Promise<void>;
}

/**
 * Opens a transaction that another process could have open: a claim or an outcome not yet committed while the
 * code under test runs. Lets a test put that transaction's commit after the start of a statement, deterministically.
 */
export async function openSideTransaction(options: ConnectionOptions): Promise<SideTransaction> {
  const { url, schema } = options.postgres as { url: string; schema: string };
  // Two connections: one holds the transaction, the other watches for lock waits.
  const source = new DataSource({ type: 'postgres', url, poolSize: 2 });
  await source.initialize();
  let runner: QueryRunner | undefined;
  try {
    runner = source.createQueryRunner();
    await runner.connect();
    await runner.startTransaction();
  } catch (error) {
    await source.destroy();
    throw error;
  }
  const held = runner;
  let open = true;
  return {
    jobs: `"${schema}".${JOBS_TABLE}`,
    query: (sql, params = []) => held.query(sql, params),
    untilWaitedOn: (work) => {
      let settled = false;
      void work.then(
        () => (settled = true),
        () => (settled = true),
      );
      return waitFor(async () => {
        if (settled) return true;
        const [row] = (await source.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1`, [
          `%${schema}%`,
        ])) as { n: string }[];
        return Number(row.n) > 0;
      }, 'a statement waits for the side transaction');
    },
    end: async (how) => {
      open = false;
      await held.query(how);
    },
    close: async () => {
      if (open) await held.query('ROLLBACK').catch(() => undefined);
      if (!held.isReleased) await held.release();
      await source.destroy();
    },
  };
}
