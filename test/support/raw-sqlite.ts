import BetterSqlite3 from 'better-sqlite3';
import sqlite3 from 'sqlite3';
import { testSqliteDriver } from './test-backend';

/**
 * Runs one statement on a database file through a connection of its own, bypassing the module: to read what
 * the public API does not show, or to write rows the way another tool would. It uses the same SQLite library
 * as the apps of the run: two different SQLite builds in one process share no POSIX locks, and closing one
 * drops the other's, which corrupts a WAL database (seen with sqlite3 next to better-sqlite3).
 * Returns the rows, or for a statement without rows, `[{ changes, lastId }]`.
 */
export async function rawQuery<T = Record<string, unknown>>(path: string, sql: string, params: unknown[] = []): Promise<T[]> {
  if (testSqliteDriver() === 'better-sqlite3') {
    const db = new BetterSqlite3(path, { timeout: 10_000 });
    try {
      const statement = db.prepare(sql);
      if (statement.reader) return statement.all(...params) as T[];
      const result = statement.run(...params);
      return [{ changes: result.changes, lastId: Number(result.lastInsertRowid) } as T];
    } finally {
      db.close();
    }
  }
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(path, (error: Error | null) => (error ? reject(error) : resolve(opened)));
  });
  try {
    db.configure('busyTimeout', 10_000);
    return await new Promise<T[]>((resolve, reject) =>
      db.all(sql, params, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows))),
    );
  } finally {
    await new Promise<void>((resolve, reject) => db.close((error: Error | null) => (error ? reject(error) : resolve())));
  }
}
