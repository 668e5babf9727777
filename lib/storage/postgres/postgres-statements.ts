import { createHash } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementOptions, StatementRunner } from '../shared/statement-runner';

/** The slice of a pooled node-postgres client that runs a named (prepared) statement. */
interface PgNamedQueryClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows?: StorageRow[]; rowCount?: number | null }>;
}

/**
 * SQLSTATEs of a prepared statement the server no longer has or cannot reuse: `26000` (it was deallocated, e.g. by
 * `DISCARD ALL`, or a transaction-pooling proxy moved us to another server connection), `42P05` (such a proxy's
 * connection already has one by that name), `0A000` with "cached plan" (a plan whose result type changed under
 * it). A failed statement outside a transaction changes nothing, so running it again unnamed cannot apply it twice.
 */
const PREPARED_STATEMENT_REFUSED: ReadonlySet<string> = new Set(['26000', '42P05', '0A000']);

/**
 * Runs each statement on a pooled connection of the DataSource, returned to the pool at once: no transaction is
 * ever left open, and concurrent statements use concurrent connections.
 *
 * Hot statements (`reused`) are sent as named statements: node-postgres prepares one once per connection and then
 * only binds and executes it, so the server skips parsing and planning a text it has seen. Every other statement goes through TypeORM unnamed, planned for its parameters. If the server refuses a named statement (a transaction-pooling proxy, a `DISCARD ALL` by
 * other code on a shared connection), the runner says so once and runs everything unnamed from then on.
 */
export class PostgresStatements implements StatementRunner {
  private readonly names = new Map<string, string>();
  private prepared: boolean;

  constructor(
    private readonly dataSource: DataSource,
    /** `postgres.preparedStatements`: false sends every statement unnamed. */
    prepared: boolean,
    /** Told once, when the server refused a prepared statement and the runner stopped naming them. */
    private readonly onPreparedRefused: (error: unknown) => void,
  ) {
    this.prepared = prepared;
  }

  async all(sql: string, params: unknown[], options?: StatementOptions): Promise<StorageRow[]> {
    return (await this.query(sql, params, options)).records;
  }

  async run(sql: string, params: unknown[], options?: StatementOptions): Promise<number> {
    return (await this.query(sql, params, options)).affected;
  }

  private async query(sql: string, params: unknown[], options?: StatementOptions): Promise<{ records: StorageRow[]; affected: number }> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      if (this.prepared && options?.reused) {
        const client = (await runner.connect()) as PgNamedQueryClient;
        // The DataSource's logger sees these as it sees TypeORM's own statements (an application's query log, a
        // statement counter in a test): only the pool is borrowed from TypeORM here, not its query path.
        const { logger } = this.dataSource;
        logger.logQuery(sql, params, runner);
        const startedAt = Date.now();
        try {
          const raw = await client.query({ name: this.nameOf(sql), text: sql, values: params });
          const took = Date.now() - startedAt;
          const slowAfter = this.dataSource.options.maxQueryExecutionTime;
          if (slowAfter && took > slowAfter) logger.logQuerySlow(took, sql, params, runner);
          return { records: raw.rows ?? [], affected: raw.rowCount ?? 0 };
        } catch (error) {
          if (!isPreparedStatementRefused(error)) {
            logger.logQueryError(error as Error, sql, params, runner);
            throw new QueryFailedError(sql, params, error as Error);
          }
          if (this.prepared) {
            this.prepared = false;
            this.onPreparedRefused(error);
          }
        }
      }
      const result = await runner.query(sql, params, true);
      return { records: (result.records ?? []) as StorageRow[], affected: result.affected ?? 0 };
    } finally {
      await runner.release();
    }
  }

  /** One name per text, the same in every process of the same build (a digest of the text). */
  private nameOf(sql: string): string {
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `nest_queue_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }
}

function isPreparedStatementRefused(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '0A000') return typeof message === 'string' && message.includes('cached plan');
  return typeof code === 'string' && PREPARED_STATEMENT_REFUSED.has(code);
}
