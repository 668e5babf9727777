import BetterSqlite3 from 'better-sqlite3';
import sqlite3 from 'sqlite3';
import type { TestDatabase } from './backends';

/**
 * Runs one statement on a test's SQLite database through a connection of its own, bypassing the module: to read
 * what the public API does not show, or to write rows the way another tool would. It uses the SQLite library of
 * the database's driver (`db.options.driver`), as its apps do: two different SQLite builds in one process share no POSIX locks, and closing one
 * drops the other's, which corrupts a WAL database (seen with sqlite3 next to better-sqlite3).
 * Returns the rows, or for a statement without rows, `[{ changes, lastId }]`.
 */
export async function rawQuery<T = Record<string, unknown>>(db: TestDatabase, sql: string, params: unknown[] = []): Promise<T[]> {
  if (db.options.postgres) throw new Error('rawQuery opens SQLite files; this test database is on PostgreSQL');
  const path = db.path;
  if (db.options.driver === 'better-sqlite3') {
    const connection = new BetterSqlite3(path, { timeout: 10_000 });
    try {
      const statement = connection.prepare(sql);
      if (statement.reader) return statement.all(...params) as T[];
      const result = statement.run(...params);
      return [{ changes: result.changes, lastId: Number(result.lastInsertRowid) } as T];
    } catch (error) {
      throw inThisRealm(error);
    } finally {
      connection.close();
    }
  }
  const connection = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(path, (error: Error | null) => (error ? reject(error) : resolve(opened)));
  });
  try {
    connection.configure('busyTimeout', 10_000);
    return await new Promise<T[]>((resolve, reject) =>
      connection.all(sql, params, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows))),
    );
  } finally {
    await new Promise<void>((resolve, reject) => connection.close((error: Error | null) => (error ? reject(error) : resolve())));
  }
}

/**
 * better-sqlite3's native addon is loaded once per process and keeps the `SqliteError` class of the first module
 * registry that opened a database (its `isInitialized` flag): in a jest worker that is the first test file that used
 * the driver, whose realm is gone. Every later file then receives errors whose prototype is another realm's
 * `Error`: `instanceof Error` is false, and `expect(...).rejects.toThrow(...)` reports "Received function did not
 * throw" for a statement that did fail. The driver's error is rethrown as an `Error` of this file's realm, with its
 * `code`, message and the original as `cause`.
 */
function inThisRealm(error: unknown): unknown {
  if (error instanceof Error || error === null || typeof error !== 'object') return error;
  const { message, code, name } = error as { message?: unknown; code?: unknown; name?: unknown };
  if (typeof message !== 'string') return error;
  const local = Object.assign(new Error(message, { cause: error }), { code });
  if (typeof name === 'string') local.name = name;
  return local;
}
