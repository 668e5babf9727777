import { Logger } from '@nestjs/common';

/** The slice of a node-sqlite3 Database the checkpointer uses. */
interface CheckpointConnection {
  all(sql: string, callback: (error: Error | null, rows: unknown[]) => void): void;
  close(callback: (error: Error | null) => void): void;
}

/** The slice of the node-sqlite3 module the checkpointer uses. */
export interface NodeSqlite3Module {
  Database: new (file: string, callback: (error: Error | null) => void) => CheckpointConnection;
}

/** Least time between the end of one background checkpoint and the start of the next. */
const MIN_GAP_MS = 10;

/**
 * Copies the WAL back into the database file from a second connection, so on another thread of libuv's pool,
 * while the module's own connection goes on writing. SQLite's automatic checkpoint runs inside the commit that
 * fills the WAL to 1,000 pages: that statement copies them all and fsyncs, and every statement queued behind it
 * waits (one statement in 25 took 3 to 6 ms instead of 0.7 in the throughput benchmark). With this running every
 * few milliseconds under write load, that commit finds most pages already copied. The automatic checkpoint stays
 * on: it copies the rest and is what lets the WAL start over from its beginning. PASSIVE never waits for, nor
 * blocks, a reader or the writer, and nothing runs while nothing is written.
 */
export class WalCheckpointer {
  private connection?: CheckpointConnection;
  private running = false;
  private closed = false;
  private lastEnd = 0;
  private whenIdle?: () => void;

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {}

  /** Opens the second connection. */
  async open(sqlite3: NodeSqlite3Module): Promise<void> {
    this.connection = await new Promise<CheckpointConnection>((resolve, reject) => {
      const connection = new sqlite3.Database(this.file, (error) => (error ? reject(error) : resolve(connection)));
    });
  }

  /** The module's connection wrote: start a checkpoint unless one runs or one ended moments ago. */
  written(): void {
    if (this.running || this.closed || !this.connection) return;
    const now = Date.now();
    if (now - this.lastEnd < MIN_GAP_MS) return;
    this.running = true;
    this.connection.all('PRAGMA wal_checkpoint(PASSIVE)', (error) => {
      this.running = false;
      this.lastEnd = Date.now();
      // Another process's checkpoint holds the lock: it does the same work.
      if (error && !/SQLITE_BUSY|SQLITE_LOCKED/.test(String(error))) {
        this.logger.warn(`Background WAL checkpoint failed (the writer's own checkpoint still runs): ${String(error)}`);
      }
      if (this.closed) this.whenIdle?.();
    });
  }

  /** Waits for a checkpoint in progress, then closes the connection. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.running) await new Promise<void>((resolve) => (this.whenIdle = resolve));
    const connection = this.connection;
    this.connection = undefined;
    if (connection) await new Promise<void>((resolve, reject) => connection.close((error) => (error ? reject(error) : resolve())));
  }
}
