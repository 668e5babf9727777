import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { UnsupportedTransactionError } from '../../errors/unsupported-transaction.error';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner, labelAfterVerb } from '../shared/statement-runner';

/** Statements run by the caller's transaction: on its query runner, never released here (the caller owns it). */
export class TransactionStatements implements StatementRunner {
  constructor(private readonly runner: QueryRunner) {}

  async all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return ((await this.runner.query(sql, params, true)).records ?? []) as StorageRow[];
  }

  async run(sql: string, params: unknown[]): Promise<number> {
    // The label behind the verb: TypeORM's node-sqlite3 runner reads no change count past a leading comment.
    return (await this.runner.query(labelAfterVerb(sql), params, true)).affected ?? 0;
  }
}

/**
 * The query runner of the open transaction `manager` belongs to. `dataSource.manager` (no transaction: each
 * statement would commit on its own) and a finished transaction's manager are refused.
 */
export function transactionRunnerOf(manager: EntityManager): QueryRunner {
  const runner = (manager as Partial<EntityManager> | null | undefined)?.queryRunner;
  if (!runner || typeof runner.query !== 'function' || !runner.isTransactionActive || runner.isReleased) {
    throw new UnsupportedTransactionError(
      'not-a-transaction',
      'options.manager must be the EntityManager of an open transaction (dataSource.transaction(async (manager) => ...))',
    );
  }
  return runner;
}

/** The DataSource of a manager: `connection` on TypeORM 0.3, `dataSource` on TypeORM 1 (which keeps `connection` as a deprecated alias). */
export function dataSourceOfManager(manager: EntityManager): DataSource {
  const { dataSource, connection } = manager as EntityManager & { dataSource?: DataSource };
  return dataSource ?? connection;
}
