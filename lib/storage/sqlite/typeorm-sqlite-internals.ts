import type { DataSource } from 'typeorm';

/**
 * The one place that reaches past TypeORM's public API for SQLite: the driver's native connection (for prepared
 * statements, serialized mode and the update hook), the node-sqlite3 module it loads (to keep verbose mode off), and
 * the `transaction` method of a borrowed DataSource's manager. A TypeORM upgrade that moves any of them breaks this
 * file only.
 */
interface SqliteDriverInternals {
  databaseConnection?: unknown;
}

/**
 * The native connection of an initialized `sqlite` or `better-sqlite3` DataSource: a node-sqlite3 `Database`
 * or a better-sqlite3 one. Callers check the slice they use.
 */
export function nativeConnectionOf(dataSource: DataSource): unknown {
  return (dataSource.driver as unknown as SqliteDriverInternals).databaseConnection;
}

/**
 * node-sqlite3 as TypeORM would load it, minus verbose mode, to pass as the DataSource's `driver`: TypeORM calls
 * `verbose()`, which wraps every Database and Statement method process-wide to capture a stack and `util.inspect`
 * each argument on every call (30-40 % of per-statement cost here). Errors still carry their SQLite message. If
 * something else in the process already switched verbose mode on, it stays on: it cannot be undone.
 */
export function quietSqlite3(): unknown {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sqlite3 = require('sqlite3') as { verbose(): unknown };
  return { ...sqlite3, verbose: () => sqlite3 };
}
