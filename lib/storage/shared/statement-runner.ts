import { StorageRow } from './job-row.mapper';

/** How a statement is to be run, beyond its text and parameters. */
export interface StatementOptions {
  /**
   * The statement is on the hot path (a claim, an enqueue): its text repeats with every call and its plan does not
   * depend on its parameters' values, so a backend may keep it prepared on each connection.
   * SQLite prepares every statement of its own connection anyway; PostgreSQL names only these.
   */
  reused?: boolean;
}

/**
 * How the statement functions of `sqlite/sql/` and `postgres/sql/` reach their database: one self-contained
 * statement per call, positional parameters. Each backend's connection module provides one.
 */
export interface StatementRunner {
  /** Runs a statement that returns rows (a SELECT, or a write with RETURNING) and returns them all. */
  all(sql: string, params: unknown[], options?: StatementOptions): Promise<StorageRow[]>;
  /** Runs a statement that returns no rows and returns how many rows it changed. */
  run(sql: string, params: unknown[], options?: StatementOptions): Promise<number>;
}

/** A statement's label (`/* complete *\/ UPDATE ...`) before its first word. */
const LEADING_LABEL = /^\s*(\/\*.*?\*\/)\s*(\w+)/s;

/**
 * The statement with its leading label moved behind its first word, for a runner that hands it to TypeORM's query
 * runner. TypeORM's node-sqlite3 runner reports a change count only for a text that starts with INSERT, UPDATE or
 * DELETE: with the label first, every labelled write read as having changed nothing (a start write as unwritten, a
 * completion as not ours). Any SQL dialect takes the comment after the word as well.
 */
export function labelAfterVerb(sql: string): string {
  return sql.replace(LEADING_LABEL, '$2 $1');
}
