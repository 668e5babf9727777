import { QueryFailedError, QueryRunner } from 'typeorm';
import { StorageRow } from '../shared/job-row.mapper';
import { StatementRunner, labelAfterVerb } from '../shared/statement-runner';

/** How the SQLite storage runs its statements: rows, or the number of rows changed. */
export interface SqliteStatements extends StatementRunner {
  /** Waits for the statement in progress and releases what this runner holds (not the connection). */
  close(): Promise<void>;
}

/** Through TypeORM's query runner: any driver, and the only safe way on a connection the application shares. */
export class QueryRunnerStatements implements SqliteStatements {
  constructor(private readonly runner: QueryRunner) {}

  async all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    const result = await this.runner.query(sql, params, true);
    return (result.records ?? []) as StorageRow[];
  }

  async run(sql: string, params: unknown[]): Promise<number> {
    const result = await this.runner.query(labelAfterVerb(sql), params, true);
    return result.affected ?? 0;
  }

  async close(): Promise<void> {
    // The runner belongs to the DataSource: nothing of ours to release.
  }
}

/** Statements that produce rows must be stepped to the end (`all`), or they stay open. */
const RETURNS_ROWS = /^\s*(?:\/\*.*?\*\/\s*)?(?:SELECT|WITH|PRAGMA\s+\w+\s*(?:;|$))|\bRETURNING\b/is;

/** The slice of a node-sqlite3 Database this runner uses. */
export interface NodeSqlite3Database {
  prepare(sql: string, callback: (error: Error | null) => void): NodeSqlite3Statement;
}

interface NodeSqlite3Statement {
  all(params: unknown[], callback: (error: Error | null, rows: StorageRow[]) => void): void;
  run(params: unknown[], callback: (this: { changes: number }, error: Error | null) => void): void;
  finalize(callback: () => void): void;
}

/**
 * Prepared statements, kept and reused, on the module's own node-sqlite3 connection. node-sqlite3 prepares a
 * statement anew on every `db.all()`: for the multi-queue claim that is about 200 µs of a 300 µs round trip, and
 * end-to-end throughput rose by about 17 % without it. The set of statements is bounded (constant SQL, and one
 * claim per number of queues).
 *
 * A prepared statement runs outside node-sqlite3's serialized queue, so this runner serializes every statement
 * of the connection itself, one at a time: only for a connection nothing else uses. Errors are TypeORM's
 * `QueryFailedError`, as through TypeORM.
 */
export class PreparedNodeSqlite3Statements implements SqliteStatements {
  private readonly prepared = new Map<string, NodeSqlite3Statement>();
  private readonly waiting: QueuedStatement[] = [];
  private active = false;
  private closed = false;
  private drained?: () => void;

  constructor(private readonly database: NodeSqlite3Database) {}

  all(sql: string, params: unknown[]): Promise<StorageRow[]> {
    return this.enqueue<StorageRow[]>(sql, params, (statement, done) => statement.all(params, (error, rows) => done(error, rows)));
  }

  /** For statements that return no rows: one step runs them to the end, so nothing stays open. */
  run(sql: string, params: unknown[]): Promise<number> {
    if (RETURNS_ROWS.test(sql)) return Promise.reject(new Error(`run() is for statements without rows; use all(): ${sql.slice(0, 80)}`));
    return this.enqueue<number>(sql, params, (statement, done) =>
      statement.run(params, function (this: { changes: number }, error) {
        done(error, this?.changes ?? 0);
      }),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.active) await new Promise<void>((resolve) => (this.drained = resolve));
    const statements = [...this.prepared.values()];
    this.prepared.clear();
    for (const statement of statements) await new Promise<void>((resolve) => statement.finalize(resolve));
  }

  private enqueue<T>(sql: string, params: unknown[], execute: Execute<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('SqliteQueueStorage used after close()'));
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ sql, params, execute: execute as Execute<unknown>, resolve: resolve as (value: unknown) => void, reject });
      if (!this.active) this.startNext();
    });
  }

  /**
   * Hands the next statement to the driver. Called from the previous statement's callback before its caller
   * is resumed, so SQLite's thread goes straight on to the next statement while this thread runs the caller's
   * continuation: no round trip through the event loop between two statements.
   */
  private startNext(): void {
    const next = this.waiting.shift();
    this.active = next !== undefined;
    if (!next) {
      this.drained?.();
      return;
    }
    const { sql, params, execute, resolve, reject } = next;
    const fail = (error: Error): void => {
      this.startNext();
      reject(new QueryFailedError(sql, params, error));
    };
    this.withStatement(sql, fail, (statement) => {
      const done = (error: Error | null, value: unknown): void => {
        if (!error) {
          this.startNext();
          return resolve(value);
        }
        // SQLite keeps a statement that failed mid-step active until it is reset, and an active statement can hold
        // back the autocommit of others; a cached one would only be reset at its next use. End it now, as
        // node-sqlite3 ends its one-shot statements, and prepare it afresh next time.
        this.prepared.delete(sql);
        statement.finalize(() => fail(error));
      };
      try {
        execute(statement, done);
      } catch (error) {
        // A driver that threw instead of calling back must not leave the queue waiting for a callback forever.
        done(error instanceof Error ? error : new Error(String(error)), undefined);
      }
    });
  }

  private withStatement(sql: string, fail: (error: Error) => void, use: (statement: NodeSqlite3Statement) => void): void {
    const cached = this.prepared.get(sql);
    if (cached) return use(cached);
    // A statement that failed to prepare is not kept: the next call prepares it again.
    try {
      const statement = this.database.prepare(sql, (error) => {
        if (error) return fail(error);
        this.prepared.set(sql, statement);
        use(statement);
      });
    } catch (error) {
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

type Execute<T> = (statement: NodeSqlite3Statement, done: (error: Error | null, value: T) => void) => void;

interface QueuedStatement {
  sql: string;
  params: unknown[];
  execute: Execute<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}
