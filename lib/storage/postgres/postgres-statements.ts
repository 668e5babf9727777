import { DataSource } from 'typeorm';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner } from '../shared/statement-runner';

/**
 * Runs each statement on a pooled connection of the DataSource, returned to the pool at once: no transaction is
 * ever left open, and concurrent statements use concurrent connections.
 */
export class PostgresStatements implements StatementRunner {
  constructor(private readonly dataSource: DataSource) {}

  async all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return (await this.query(sql, params)).records;
  }

  async run(sql: string, params: unknown[]): Promise<number> {
    return (await this.query(sql, params)).affected;
  }

  private async query(sql: string, params: unknown[]): Promise<{ records: StorageRow[]; affected: number }> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      const result = await runner.query(sql, params, true);
      return { records: (result.records ?? []) as StorageRow[], affected: result.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }
}
