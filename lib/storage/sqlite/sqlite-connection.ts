import { Logger } from '@nestjs/common';
import { Observable, Subject, merge } from 'rxjs';
import { DataSource } from 'typeorm';
import { DatabaseOpenError } from '../../errors/database-open.error';
import { DatabaseUnavailableError } from '../../errors/database-unavailable.error';
import { QueueError } from '../../errors/queue.error';
import { storageFailureKind } from '../../errors/codes/storage-failure';
import { SqliteDriverName } from '../../interfaces/sqlite-queue-module-options.interface';
import { JOBS_TABLE } from '../../table-names.constants';
import { MODULE_DEFAULTS } from '../../module-defaults.constants';
import { StatementRunner } from '../shared/statement-runner';
import { NodeSqlite3Database, PreparedNodeSqlite3Statements, QueryRunnerStatements, SqliteStatements } from './sqlite-statements';
import { FileIdentityWatch } from './file-identity-watch';
import { probeWrite } from './sql/probe.sql';
import { insertHintsOf } from './sqlite-update-hook';
import { nativeConnectionOf, quietSqlite3 } from './typeorm-sqlite-internals';
import { NodeSqlite3Module, WalCheckpointer } from './wal-checkpointer';
import { isBusy } from './sqlite-busy';
import { keepRolledBackIds } from './sql/sequence.sql';
import { SqliteTransactionWatch } from '../transactions/sqlite-transaction-watch';
import { TransactionGate } from '../transactions/sqlite-transaction-gate';
import { WatchedTransaction } from '../transactions/sqlite-watched-transaction';

/**
 * Where the SQLite storage gets its connection, and how long its statements wait for another connection's lock
 * (`busyTimeout`, the module option; default `MODULE_DEFAULTS.busyTimeout`), on a lent DataSource too: the lease
 * floor the options were checked against assumes that wait.
 */
export type SqliteConnectionSource = ({ dataSource: DataSource } | { database: string; driver: SqliteDriverName; readOnly?: boolean }) & {
  busyTimeout?: number;
};

/**
 * The SQLite connection of a storage: which driver, opened how (pragmas), which statement runner, the background
 * WAL checkpointer and the insert hints. Owns the DataSource it created; a borrowed one is left to its owner.
 */
export class SqliteConnection {
  private readonly dataSource: DataSource;
  private readonly ownsDataSource: boolean;
  private statements?: SqliteStatements;
  private backgroundStatements?: StatementRunner;
  /** The application's calls on a borrowed connection (see TransactionGate.callers). */
  private callerStatements?: StatementRunner;
  /** On a borrowed connection: its transactions, followed. */
  private transactions?: SqliteTransactionWatch;
  private checkpointer?: WalCheckpointer;
  private hints$?: Observable<void>;
  /** Our own inserts announce themselves: no native round trip per row. */
  private readonly localInserts = new Subject<void>();
  private readonly logger = new Logger('JobQueue');
  private watch?: FileIdentityWatch;
  private faulted?: DatabaseUnavailableError;
  private readonly busyTimeout: number;
  /**
   * Opened read-only (tools that must change no byte of the file: the CLI's reading commands, a dry run): SQLite
   * refuses every write, and none of the set-up that writes runs (WAL mode, the probe write, the checkpointer).
   */
  private readonly readOnly: boolean;

  constructor(source: SqliteConnectionSource) {
    this.busyTimeout = source.busyTimeout ?? MODULE_DEFAULTS.busyTimeout;
    if ('dataSource' in source) {
      this.dataSource = source.dataSource;
      this.ownsDataSource = false;
      this.readOnly = false;
    } else {
      this.readOnly = source.readOnly === true && source.database !== ':memory:';
      // No `enableWAL`: TypeORM's sqlite driver asks for WAL mode before it sets the busy timeout, so a file another
      // connection holds fails that first statement at once (SQLITE_BUSY) instead of waiting; `configure` asks for it.
      const common = { database: source.database, synchronize: false, logging: false };
      this.dataSource =
        source.driver === 'better-sqlite3'
          ? new DataSource({
              ...common,
              type: 'better-sqlite3',
              timeout: this.busyTimeout,
              ...(this.readOnly ? { readonly: true, fileMustExist: true } : {}),
            })
          : new DataSource({
              ...common,
              type: 'sqlite',
              busyTimeout: this.busyTimeout,
              driver: quietSqlite3(),
              ...(this.readOnly ? { flags: SQLITE_OPEN_READONLY } : {}),
            });
      this.ownsDataSource = true;
    }
  }

  /** The database file (or `:memory:`). */
  get path(): string {
    return String(this.dataSource.options.database);
  }

  /**
   * Runs the statements of the application's calls (`add`, `QueueAdmin`, a job's progress); only between `open` and
   * `close`. On a DataSource shared with the application, a call made while the application has a transaction
   * open waits for its end, unless it was made inside that transaction (see SqliteTransactionWatch).
   */
  get runner(): StatementRunner {
    if (!this.statements) throw new Error('SqliteQueueStorage used before initialize()');
    return this.callerStatements ?? this.statements;
  }

  /**
   * On a DataSource shared with the application: its open transaction when the current call is made inside it
   * (its statements run in that transaction and roll back with it). Undefined otherwise, at the cost of a field read
   * when no transaction is open.
   */
  callerTransaction(): WatchedTransaction | undefined {
    return this.transactions?.callerTransaction();
  }

  /**
   * Runs the statements the module makes on its own (claims, outcomes, heartbeats, recovery, housekeeping). The same
   * as `runner`, except on a DataSource shared with the application: there they wait while the application has a
   * transaction open on the one connection (see SqliteTransactionWatch).
   */
  get background(): StatementRunner {
    if (!this.backgroundStatements) throw new Error('SqliteQueueStorage used before initialize()');
    return this.backgroundStatements;
  }

  /** The TypeORM DataSource the storage runs on (its own, or the application's). */
  get source(): DataSource {
    return this.dataSource;
  }

  /** Hints that jobs were inserted: ours, and on a borrowed node-sqlite3 connection the application's too. */
  get insertHints$(): Observable<void> {
    if (!this.hints$) throw new Error('SqliteQueueStorage used before initialize()');
    return this.hints$;
  }

  /**
   * Opens the DataSource if owned and sets the connection up; `setUp` (the schema) runs after the pragmas and
   * before the checkpointer opens its second connection on the file.
   */
  async open(setUp: (runner: StatementRunner) => Promise<void>): Promise<void> {
    const type = this.dataSource.options.type;
    if (type !== 'sqlite' && type !== 'better-sqlite3') {
      throw new Error(`SqliteQueueStorage needs a DataSource of type 'sqlite' or 'better-sqlite3', got '${type}'`);
    }
    let connection: unknown;
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      connection = nativeConnectionOf(this.dataSource);
      if (type === 'sqlite') serializeStatements(connection);
      this.statements =
        type === 'sqlite' && this.ownsDataSource
          ? new PreparedNodeSqlite3Statements(connection as NodeSqlite3Database)
          : new QueryRunnerStatements(this.dataSource.createQueryRunner());
      await this.configure(this.statements);
      this.backgroundStatements = this.statements;
      if (!this.ownsDataSource) {
        const transactions = SqliteTransactionWatch.of(this.dataSource, keepRolledBackIds);
        const gate = new TransactionGate(this.statements, () => transactions.callerTransaction() !== undefined);
        transactions.setGate(gate);
        this.transactions = transactions;
        this.backgroundStatements = gate;
        this.callerStatements = gate.callers;
      }
      await setUp(this.statements);
      // Temporary b-trees in memory from here on, after the migrations (whose index builds may sort millions of rows,
      // which belongs on disk). A grouped queue's claim materializes a few small temporary tables each round, and each
      // one on disk cost a file's creation: 4.2 ms against 0.6 ms per grouped queue per claim on an empty file. A
      // borrowed connection keeps its owner's choice.
      if (this.ownsDataSource) await this.statements.run('PRAGMA temp_store = MEMORY', []);
      if (!this.readOnly) await probeWrite(this.statements);
    } catch (error) {
      // The drivers say SQLITE_NOTADB or SQLITE_CANTOPEN without the path, and a read-only file opens fine.
      // The library's own errors (a schema it cannot upgrade, say) already say what is wrong.
      throw error instanceof QueueError ? error : new DatabaseOpenError(`file "${this.path}"`, error);
    }
    // Only where it can run beside the writer: our own node-sqlite3 connection (better-sqlite3 would run it on
    // this thread, and a borrowed connection's file is the application's to manage).
    if (type === 'sqlite' && this.ownsDataSource && !this.readOnly && this.dataSource.options.database !== ':memory:') {
      const logger = this.logger;
      const checkpointer = new WalCheckpointer(this.path, logger);
      try {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        await checkpointer.open(require('sqlite3') as NodeSqlite3Module);
        this.checkpointer = checkpointer;
      } catch (error) {
        // Only speed is lost: the writer's own automatic checkpoint keeps the WAL in bounds.
        logger.warn(`No background WAL checkpoints (second connection refused): ${String(error)}`);
      }
    }
    if (this.path !== ':memory:' && this.path !== '') {
      this.watch = new FileIdentityWatch(this.path, this.logger, (what) => this.fail(new DatabaseUnavailableError(this.path, what)));
      this.watch.start();
    }
    this.hints$ = this.localInserts.asObservable();
    // SQLite's update hook reports every row change of the connection to JavaScript, one event each (three per
    // job: insert, claim, completion): 20 % of the CPU of a busy worker. On our own connection every write is
    // ours and announces itself. A borrowed connection is shared with the application, which may insert jobs
    // itself (in its own transaction, say): there the hook is what tells the poller.
    if (type === 'sqlite' && !this.ownsDataSource) {
      this.hints$ = merge(this.hints$, insertHintsOf(connection, JOBS_TABLE));
    }
  }

  /**
   * Set once the file was deleted, replaced or found corrupted: from then on this process claims nothing and
   * refuses new jobs (see DatabaseUnavailableError). Cleared only by a restart.
   */
  get fault(): DatabaseUnavailableError | undefined {
    return this.faulted;
  }

  /** Looks at a failed statement's error: a corrupted file faults the connection (once, logged once). */
  noteFailure(error: unknown): void {
    const kind = storageFailureKind(error);
    if (kind === 'corrupt' || kind === 'not-a-database') this.fail(new DatabaseUnavailableError(this.path, 'corrupt', error));
  }

  private fail(fault: DatabaseUnavailableError): void {
    if (this.faulted) return;
    this.faulted = fault;
    // The one line that says it: the loops meet this state as "nothing to claim", not as errors to log again.
    this.logger.error(fault.message);
  }

  /** Releases what `open` opened. */
  async close(): Promise<void> {
    await this.watch?.stop();
    await this.statements?.close();
    await this.checkpointer?.close();
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  /** Tells the checkpointer that a statement wrote, so it copies the WAL back soon. */
  written(): void {
    this.checkpointer?.written();
  }

  /** Announces jobs this connection made claimable (inserted, or put back to pending). */
  inserted(): void {
    this.localInserts.next();
  }

  /**
   * `PRAGMA journal_mode = WAL`, tried again while another connection holds the file's write lock, up to busyTimeout:
   * the switch needs the file to itself, and SQLite answers SQLITE_BUSY at once rather than wait for a lock held by a
   * writer (another process migrating, say), since this connection's own read lock could be what that writer waits for.
   */
  private async switchToWal(runner: StatementRunner): Promise<void> {
    const deadline = Date.now() + this.busyTimeout;
    for (;;) {
      try {
        await runner.all('PRAGMA journal_mode = WAL', []);
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, WAL_SWITCH_RETRY_MS));
      }
    }
  }

  private async configure(runner: StatementRunner): Promise<void> {
    const memory = this.dataSource.options.database === ':memory:';
    // First: every later statement, the switch to WAL included (it needs the file to itself), waits for a lock
    // another connection holds, up to busyTimeout, rather than failing at once.
    await runner.all(`PRAGMA busy_timeout = ${this.busyTimeout}`, []);
    // Asking for WAL mode converts a rollback-journal file for good (and writes a header into an empty one).
    if (!memory && !this.readOnly) await this.switchToWal(runner);
    // Schema step 4's flow trigger needed it to fail a nested parent's own parent; step 7 climbs the tree in one call
    // and no longer does. Kept so that triggers of the user's own on these tables fire as they did.
    await runner.run('PRAGMA recursive_triggers = ON', []);
    // A borrowed connection keeps its owner's durability choice; our own trades fsync per commit for WAL's
    // checkpoint-time durability, as SQLite recommends for WAL.
    if (this.ownsDataSource && !this.readOnly) await runner.run('PRAGMA synchronous = NORMAL', []);
  }
}

/** Pause between two tries of the switch to WAL mode while the file's write lock is held. */
const WAL_SWITCH_RETRY_MS = 20;

/** node-sqlite3's `OPEN_READONLY` open flag (SQLite's `SQLITE_OPEN_READONLY`), without loading the driver here. */
const SQLITE_OPEN_READONLY = 0x00000001;

/**
 * node-sqlite3 runs the statements of a connection in parallel unless told otherwise. When one of them fails
 * with SQLITE_BUSY (another process held the write lock past busy_timeout), SQLite keeps that statement in
 * progress, so the writes of statements that run meanwhile cannot autocommit; they are rolled back with it
 * although each reported success (added jobs vanish, completions are undone, reused ids). In serialized mode
 * each statement is finished before the next starts. Shown by test/locked-database.e2e-spec.ts.
 */
function serializeStatements(connection: unknown): void {
  const database = connection as { serialize?: () => void } | null;
  if (typeof database?.serialize === 'function') database.serialize();
}
