import { DataSource, Logger as TypeOrmLogger } from 'typeorm';
import type { SqliteQueueModuleOptions } from '../../lib';
import type { TestDatabase } from './backends';

/** One statement as TypeORM sent it to the database. */
export interface LoggedStatement {
  sql: string;
  parameters: unknown[];
  /** Epoch ms when TypeORM handed it to the driver. */
  at: number;
}

/** The comment the library starts its claim statement with (both backends). */
export const CLAIM_PREFIX = '/* claim */';

/**
 * A TypeORM logger that records every statement instead of printing it. TypeORM's query runners call
 * `logQuery` for every statement whatever the `logging` option says, so this sees all the SQL the queue runs.
 */
export class StatementLog implements TypeOrmLogger {
  readonly statements: LoggedStatement[] = [];

  logQuery(query: string, parameters?: unknown[]): void {
    this.statements.push({ sql: query, parameters: parameters ?? [], at: Date.now() });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** Whether a statement is a claim. */
  static isClaim(statement: LoggedStatement): boolean {
    return statement.sql.trimStart().startsWith(CLAIM_PREFIX);
  }

  /** How many claim statements were sent so far. */
  get claims(): number {
    return this.statements.filter(StatementLog.isClaim).length;
  }
}

/** Module options whose DataSource records its statements, and what to do with it afterwards. */
export interface CountingConnection {
  /** Pass to `forRoot({ ...options, pollInterval... })`: the DataSource (and, on PostgreSQL, its schema). */
  options: Pick<SqliteQueueModuleOptions, 'dataSource' | 'postgres'>;
  dataSource: DataSource;
  log: StatementLog;
  /** Destroys the DataSource (the module never closes a borrowed one). */
  destroy(): Promise<void>;
}

/**
 * A not yet initialised DataSource for a test's database, with a statement log as its logger: the SQLite file
 * with the database's driver, or on PostgreSQL a connection to the test server and the database's schema, so
 * child apps given the same database share the queue with it.
 */
export function countingConnection(db: TestDatabase): CountingConnection {
  const log = new StatementLog();
  const { database, driver, postgres } = db.options;
  const dataSource = postgres
    ? new DataSource({ type: 'postgres', url: postgres.url, logger: log, poolSize: 4 })
    : driver === 'better-sqlite3'
      ? new DataSource({ type: 'better-sqlite3', database: database!, logger: log, entities: [], synchronize: false })
      : new DataSource({ type: 'sqlite', database: database!, logger: log, entities: [], synchronize: false });
  const options: CountingConnection['options'] = postgres ? { dataSource, postgres: { schema: postgres.schema } } : { dataSource };
  return {
    options,
    dataSource,
    log,
    destroy: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}
