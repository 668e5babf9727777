import { Logger } from '@nestjs/common';
import { PostgresConnection } from '../postgres-connection';
import { PostgresTransactions } from '../postgres-transaction';
import { PostgresContext } from '../sql/postgres-sql-fragments';

/**
 * What the PostgreSQL storage's roles share: the connection (its pool, its LISTEN connection and hints), the context
 * its statements run in (runner and table names), the caller's transactions, the logger, and the schema settings
 * boot applies.
 */
export interface PostgresBackend {
  readonly connection: PostgresConnection;
  readonly db: PostgresContext;
  readonly transactions: PostgresTransactions;
  readonly logger: Logger;
  /** The queue's schema. */
  readonly schema: string;
  /** Boot creates and migrates the schema (else it only checks it). */
  readonly createSchema: boolean;
  /** How long boot waits for another process's migration, in ms. */
  readonly migrationLockTimeout: number;
}
