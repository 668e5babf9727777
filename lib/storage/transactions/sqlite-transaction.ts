import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { UnsupportedTransactionError } from '../../errors/unsupported-transaction.error';
import { dataSourceOfManager, transactionRunnerOf } from './transaction-statements';

/**
 * The query runner of the caller's transaction, when it can write the queue's tables atomically with the caller's
 * own changes: it runs on the module's DataSource (shared with the application), or on another SQLite DataSource of
 * the same file (two connections to one file: SQLite's own locking makes the transaction atomic). Anything else
 * (another file, `:memory:` on another connection, another driver) throws UnsupportedTransactionError.
 */
export function sqliteTransactionRunner(manager: EntityManager, queueSource: DataSource): QueryRunner {
  const runner = transactionRunnerOf(manager);
  const source = dataSourceOfManager(manager);
  if (source === queueSource) return runner;
  const type = source?.options?.type;
  if (type !== 'sqlite' && type !== 'better-sqlite3') {
    throw new UnsupportedTransactionError('other-database', `the queue is on SQLite, the transaction is on a '${String(type)}' DataSource`);
  }
  const theirs = fileOf(source);
  const ours = fileOf(queueSource);
  if (theirs === null || ours === null || theirs !== ours) {
    throw new UnsupportedTransactionError(
      'other-database',
      `the transaction's SQLite database (${String(source.options.database)}) is not the queue's (${String(queueSource.options.database)})`,
    );
  }
  return runner;
}

/** The real path of a DataSource's file; null for an in-memory database, which no other connection can see. */
function fileOf(source: DataSource): string | null {
  const database = String(source.options.database ?? '');
  if (database === '' || database === ':memory:' || database.startsWith('file::memory:')) return null;
  const path = resolve(database);
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
