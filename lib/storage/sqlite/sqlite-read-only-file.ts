import { DatabaseOpenError } from '../../errors/database-open.error';
import { storageFailureKind } from '../../errors/codes/storage-failure';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner } from '../shared/statement-runner';

/** The slice of better-sqlite3 used here. */
interface BetterSqliteDatabase {
  prepare(sql: string): { all(...params: unknown[]): StorageRow[] };
  exec(sql: string): void;
  close(): void;
}

/** The slice of node-sqlite3 used here. */
interface NodeSqlite3ReadDatabase {
  all(sql: string, params: unknown[], callback: (error: Error | null, rows: StorageRow[]) => void): void;
  exec(sql: string, callback: (error: Error | null) => void): void;
  close(callback: (error: Error | null) => void): void;
}

/**
 * A SQLite file opened read-only, with the driver the application uses, outside TypeORM: for tools that must never
 * write the file (promote reads the queue it copies this way). SQLite itself refuses every write on such a
 * connection, so "read-only" is the database's promise, not this code's. `run` exists only to satisfy
 * `StatementRunner`: it throws.
 */
export class SqliteReadOnlyFile implements StatementRunner {
  /** The file, for errors (set by `open`). */
  private path?: string;

  /** Wraps an open connection; use `open`. */
  constructor(
    private readonly query: (sql: string, params: unknown[]) => Promise<StorageRow[]>,
    private readonly execute: (sql: string) => Promise<void>,
    private readonly closer: () => Promise<void>,
  ) {}

  /** Opens `path` read-only (it must exist); `DatabaseOpenError` when the driver cannot. */
  static async open(path: string, driver: SqliteDriverName): Promise<SqliteReadOnlyFile> {
    try {
      const file = driver === 'better-sqlite3' ? openBetterSqlite(path) : await openNodeSqlite3(path);
      file.path = path;
      return file;
    } catch (error) {
      throw new DatabaseOpenError(path, error);
    }
  }

  /** Runs a read; a file SQLite cannot read (not a database, corrupt) fails with `DatabaseOpenError`, as at open. */
  async all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    try {
      return await this.query(sql, params);
    } catch (error) {
      if (this.path !== undefined && storageFailureKind(error) !== 'other') throw new DatabaseOpenError(this.path, error);
      throw error;
    }
  }

  run(): Promise<number> {
    return Promise.reject(new Error('SqliteReadOnlyFile: a read-only file runs no writes'));
  }

  /**
   * Starts a read transaction: every statement until `endRead` sees one snapshot of the file, whatever another
   * process commits meanwhile (and in rollback-journal mode, holds off writers until then).
   */
  async beginRead(): Promise<void> {
    await this.execute('BEGIN');
    // A deferred BEGIN takes its snapshot at the first read: read now. It is also the first read of the file, the one a
    // file that is not a database fails: through `all`, so that says DatabaseOpenError, not the driver's words.
    await this.all('SELECT count(*) AS n FROM sqlite_master', []);
  }

  /** Ends the read transaction. */
  async endRead(): Promise<void> {
    await this.execute('COMMIT');
  }

  close(): Promise<void> {
    return this.closer();
  }
}

function openBetterSqlite(path: string): SqliteReadOnlyFile {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Database = require('better-sqlite3') as new (path: string, options: object) => BetterSqliteDatabase;
  const db = new Database(path, { readonly: true, fileMustExist: true });
  return new SqliteReadOnlyFile(
    async (sql, params) => db.prepare(sql).all(...params),
    async (sql) => db.exec(sql),
    async () => db.close(),
  );
}

async function openNodeSqlite3(path: string): Promise<SqliteReadOnlyFile> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sqlite3 = require('sqlite3') as {
    OPEN_READONLY: number;
    Database: new (path: string, mode: number, callback: (error: Error | null) => void) => NodeSqlite3ReadDatabase;
  };
  const db = await new Promise<NodeSqlite3ReadDatabase>((resolve, reject) => {
    const opened: NodeSqlite3ReadDatabase = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) =>
      error ? reject(error) : resolve(opened),
    );
  });
  return new SqliteReadOnlyFile(
    (sql, params) => new Promise((resolve, reject) => db.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows)))),
    (sql) => new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve()))),
    () => new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve()))),
  );
}
