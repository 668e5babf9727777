import { Logger } from '@nestjs/common';
import { Observable, filter, map } from 'rxjs';
import { DataSource } from 'typeorm';
import { DatabaseOpenError } from '../../errors/database-open.error';
import { QueueError } from '../../errors/queue.error';
import { PostgresQueueOptions } from '../../interfaces/postgres-queue-options.interface';
import { BurstLogger } from '../../utils/burst-logger';
import { StatementRunner } from '../shared/statement-runner';
import { guardPoolErrors } from './guard-pool-errors';
import { PgListenClient, PostgresNotificationListener } from './postgres-notification-listener';
import { PostgresStatements } from './postgres-statements';
import { PostgresContext, listenSql, postgresTables } from './sql/postgres-sql-fragments';
import { clientFactoryOf, masterPoolOf } from './typeorm-postgres-internals';

/** Where the PostgreSQL storage gets its connection. */
export type PostgresConnectionSource = { dataSource: DataSource } | { connection: PostgresQueueOptions };

/**
 * The PostgreSQL connections of a storage: the DataSource's pool (created here from the `postgres` options, or
 * borrowed), guarded so no error of a pooled connection goes unhandled, the statement runner over it, and the
 * dedicated LISTEN connection whose notifications are the insert hints.
 */
export class PostgresConnection {
  private readonly dataSource: DataSource;
  private readonly ownsDataSource: boolean;
  private readonly logger = new Logger('JobQueue:postgres');
  /** Connection errors come in storms (every pooled connection at once): one line per storm. */
  private readonly connectionErrors = new BurstLogger(this.logger);
  private listener?: PostgresNotificationListener;
  private initializing?: Promise<void>;
  private closed = false;
  /** What the statement functions of `sql/` run on. */
  readonly context: PostgresContext;

  constructor(source: PostgresConnectionSource, schema: string, preparedStatements: boolean) {
    if ('dataSource' in source) {
      this.dataSource = source.dataSource;
      this.ownsDataSource = false;
    } else {
      const { url, host, port, username, password, database, ssl, poolSize } = source.connection;
      this.dataSource = new DataSource({
        type: 'postgres',
        url,
        host,
        port,
        username,
        password,
        database,
        ssl,
        poolSize,
        applicationName: 'nest-queue',
        // Idle pooled connections do not keep the process alive, as with SQLite (see the listener).
        extra: { allowExitOnIdle: true },
        synchronize: false,
        logging: false,
      });
      this.ownsDataSource = true;
    }
    const runner = new PostgresStatements(this.dataSource, preparedStatements, (error) =>
      this.logger.warn(
        `The server refused a prepared statement (${String(error)}): statements are sent unnamed from now on. Behind a ` +
          `transaction-pooling proxy (PgBouncer before 1.21), set postgres.preparedStatements to false.`,
      ),
    );
    this.context = { runner, tables: postgresTables(schema) };
  }

  /** The TypeORM DataSource of the pool (its own, or the application's). */
  get source(): DataSource {
    return this.dataSource;
  }

  /** Hints that jobs were enqueued, by any process on any machine sharing the schema. */
  get insertHints$(): Observable<void> {
    return this.listening().hints$;
  }

  /** Ids of jobs some process just finished; null when unknown which (a long list, or a reconnect). */
  get finishHints$(): Observable<string[] | null> {
    const channel = this.context.tables.finishChannel;
    return this.listening().notifications$.pipe(
      filter((message) => message.channel === channel),
      map((message) => (message.payload ? message.payload.split(',') : null)),
    );
  }

  /** Which process just published a batch of cluster events; null after a reconnect (anyone may have). */
  get eventHints$(): Observable<string | null> {
    const channel = this.context.tables.eventsChannel;
    return this.listening().notifications$.pipe(
      filter((message) => message.channel === channel),
      map((message) => message.payload || null),
    );
  }

  private listening(): PostgresNotificationListener {
    if (!this.listener) throw new Error('PostgresQueueStorage used before initialize()');
    return this.listener;
  }

  /**
   * Opens the pool if owned, runs `setUp` (the schema), then starts listening. Once: later calls wait for the first.
   * On failure it releases what it opened (the runtime never closes a storage whose initialize failed).
   */
  open(setUp: (dataSource: DataSource, runner: StatementRunner) => Promise<void>): Promise<void> {
    this.initializing ??= this.openOnce(setUp);
    return this.initializing;
  }

  /** Waits for an open in progress, then releases everything; safe to call at any time, and twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.initializing?.catch(() => undefined);
    await this.releaseResources();
  }

  private async openOnce(setUp: (dataSource: DataSource, runner: StatementRunner) => Promise<void>): Promise<void> {
    if (this.closed) throw new Error('PostgresQueueStorage closed before initialize()');
    const type = this.dataSource.options.type;
    if (type !== 'postgres') {
      throw new Error(`PostgresQueueStorage needs a DataSource of type 'postgres', got '${type}'`);
    }
    try {
      if (!this.dataSource.isInitialized) await this.dataSource.initialize();
      this.guardConnections();
      await setUp(this.dataSource, this.context.runner);
      // Closed meanwhile: open no LISTEN connection that close() would no longer see.
      if (this.closed) return;
      const { tables } = this.context;
      this.listener = new PostgresNotificationListener(
        () => this.createListenClient(),
        tables.channel,
        listenSql(tables),
        this.logger,
        undefined,
        [tables.finishChannel, tables.eventsChannel],
      );
      await this.listener.start();
    } catch (error) {
      await this.releaseResources().catch(() => undefined);
      // pg says ECONNREFUSED or 28P01 without naming the server it tried. The library's own errors say enough.
      throw error instanceof QueueError ? error : new DatabaseOpenError(`server ${this.serverName()}`, error);
    }
  }

  /** `host:port/database` of the pool, for messages (never the password). */
  private serverName(): string {
    const options = this.dataSource.options as { url?: string; host?: string; port?: number; database?: string };
    let { host, port, database } = options;
    if (options.url) {
      try {
        const url = new URL(options.url);
        host = url.hostname || host;
        port = url.port ? Number(url.port) : port;
        database = url.pathname.replace(/^\//, '') || database;
      } catch {
        return '(unparsable url)';
      }
    }
    return `${host ?? 'localhost'}:${port ?? 5432}/${database ?? '(default database)'}`;
  }

  /** No error of a pooled connection may go unhandled (that kills the process): see guardPoolErrors. */
  private guardConnections(): void {
    const master = masterPoolOf(this.dataSource);
    if (!master) {
      this.logger.warn('Cannot reach the pg pool inside the TypeORM postgres driver: connection errors are left to TypeORM');
      return;
    }
    guardPoolErrors(master.pool, master.clients, (error) =>
      this.connectionErrors.report(`PostgreSQL connection error (the pool replaces the connection): ${error.message}`),
    );
  }

  private async releaseResources(): Promise<void> {
    await this.listener?.close();
    if (this.ownsDataSource && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  /**
   * A connection of its own for LISTEN, configured like the DataSource's pool: a pooled connection would be
   * handed to other queries, and a held one would shrink the pool. TCP keep-alive lets the OS notice a peer
   * that vanished without closing the socket.
   */
  private createListenClient(): PgListenClient {
    const { Client, options: poolOptions } = clientFactoryOf(this.dataSource);
    return new Client({
      ...poolOptions,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      connectionTimeoutMillis: poolOptions.connectionTimeoutMillis || 10_000,
    });
  }
}
