import { DatabaseOpenError } from '../../errors/database-open.error';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner } from '../shared/statement-runner';

/** The slice of pg's `Client` used here. */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: StorageRow[]; rowCount: number | null }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}

/**
 * One plain pg connection, outside TypeORM's pool, for a tool that does one long transaction (promote): a pool
 * would hand each statement to any connection, and the transaction must be one connection's.
 */
export class PostgresDirectClient implements StatementRunner {
  /** Wraps a connected client; use `connect`. */
  constructor(private readonly client: PgClient) {}

  /** Connects to `url`; `DatabaseOpenError` (connection refused, authentication...) naming the server, never the password. */
  static async connect(url: string, target: string): Promise<PostgresDirectClient> {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Client } = require('pg') as { Client: new (config: { connectionString: string; application_name: string }) => PgClient };
    const client = new Client({ connectionString: url, application_name: 'nestjs-sqlite-queue promote' });
    // A connection lost mid-copy fails the statement in flight; this only keeps the event from crashing the process.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      await client.end().catch(() => undefined);
      throw new DatabaseOpenError(target, error);
    }
    return new PostgresDirectClient(client);
  }

  async all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return (await this.client.query(sql, params)).rows;
  }

  async run(sql: string, params: unknown[]): Promise<number> {
    return (await this.client.query(sql, params)).rowCount ?? 0;
  }

  /** Runs statements of our own (schema steps, BEGIN/COMMIT), without parameters. */
  async execute(sql: string): Promise<void> {
    await this.client.query(sql);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}
