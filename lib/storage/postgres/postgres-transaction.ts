import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { UnsupportedTransactionError } from '../../errors/unsupported-transaction.error';
import { StatementRunner } from '../shared/statement-runner';
import { dataSourceOfManager, transactionRunnerOf } from '../transactions/transaction-statements';
import { PostgresTables } from './sql/postgres-sql-fragments';

/** Which database a connection is on, and which jobs table it sees (an oid is unique within a database). */
const IDENTITY_SQL = `SELECT current_database() AS db, to_regclass($1)::oid::text AS jobs`;

/**
 * The query runner of the caller's transaction, when it can write the queue's tables atomically: the module's own
 * DataSource, or another `postgres` DataSource on the same database (checked once per DataSource, by asking both
 * connections which database and which jobs table they see). Throws UnsupportedTransactionError otherwise.
 */
export class PostgresTransactions {
  private ownIdentity?: Promise<string>;
  private readonly checked = new WeakMap<DataSource, Promise<void>>();

  constructor(
    private readonly queueSource: () => DataSource,
    private readonly queueRunner: StatementRunner,
    private readonly tables: PostgresTables,
  ) {}

  async runnerFor(manager: EntityManager): Promise<QueryRunner> {
    const runner = transactionRunnerOf(manager);
    const source = dataSourceOfManager(manager);
    if (source === this.queueSource()) return runner;
    if (source?.options?.type !== 'postgres') {
      throw new UnsupportedTransactionError(
        'other-database',
        `the queue is on PostgreSQL, the transaction is on a '${String(source?.options?.type)}' DataSource`,
      );
    }
    let check = this.checked.get(source);
    if (!check) {
      check = this.check(runner);
      this.checked.set(source, check);
      // A failed check (a dropped connection, say) is asked again next time; a mismatch is, too, cheaply.
      check.catch(() => this.checked.delete(source));
    }
    await check;
    return runner;
  }

  private async check(runner: QueryRunner): Promise<void> {
    const ours = await this.queueIdentity();
    const theirs = await this.identity(async (sql, params) => (await runner.query(sql, params, true)).records ?? []);
    if (theirs !== ours) {
      throw new UnsupportedTransactionError(
        'other-database',
        `the transaction's DataSource is connected to another PostgreSQL database than the queue's (${theirs} vs ${ours})`,
      );
    }
  }

  /**
   * The queue connection's identity, asked once and kept once known. Callers meanwhile share the question; a failed one
   * is forgotten, so one dropped connection does not fail every later check of the process.
   */
  private queueIdentity(): Promise<string> {
    if (!this.ownIdentity) {
      const asking = this.identity((sql, params) => this.queueRunner.all(sql, params));
      this.ownIdentity = asking;
      asking.catch(() => {
        if (this.ownIdentity === asking) this.ownIdentity = undefined;
      });
    }
    return this.ownIdentity;
  }

  private async identity(query: (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>): Promise<string> {
    const [row] = await query(IDENTITY_SQL, [this.tables.T]);
    return `${String(row?.db)}/${String(row?.jobs)}`;
  }
}
