import { StorageRow } from './job-row.mapper';

/**
 * How the statement functions of `sqlite/sql/` and `postgres/sql/` reach their database: one self-contained
 * statement per call, positional parameters. Each backend's connection module provides one.
 */
export interface StatementRunner {
  /** Runs a statement that returns rows (a SELECT, or a write with RETURNING) and returns them all. */
  all(sql: string, params: unknown[]): Promise<StorageRow[]>;
  /** Runs a statement that returns no rows and returns how many rows it changed. */
  run(sql: string, params: unknown[]): Promise<number>;
}
