import type { TlsOptions } from 'node:tls';

/**
 * The `postgres` option of `SqliteQueueModule.forRoot()` / `QueueModule.forRoot()`: run the queue on
 * PostgreSQL (TypeORM's `postgres` driver; install `pg`). With these options alone the module opens its own
 * DataSource and closes it on shutdown. Next to `dataSource` (a DataSource of type `postgres`), only `schema`,
 * `createSchema` and `preparedStatements` apply: the connection is the borrowed one, which the module never closes.
 */
export interface PostgresQueueOptions {
  /** Connection URL, e.g. `postgres://user:password@host:5432/db`. Fields set next to it override its parts. */
  url?: string;
  /** Server host. Default: node-postgres' default (`PGHOST` or `localhost`). */
  host?: string;
  /** Server port. Default: node-postgres' default (`PGPORT` or 5432). */
  port?: number;
  /** User name. Default: node-postgres' default (`PGUSER` or the OS user). */
  username?: string;
  /** Password. Default: node-postgres' default (`PGPASSWORD`, ~/.pgpass). */
  password?: string;
  /** Database name. Default: node-postgres' default (`PGDATABASE` or the user name). */
  database?: string;
  /** TLS: `true`, or Node TLS options (`{ rejectUnauthorized, ca, ... }`). Default: no TLS. */
  ssl?: boolean | TlsOptions;
  /** Most connections of the module's pool (one more is held for LISTEN). Default 10. */
  poolSize?: number;
  /**
   * PostgreSQL schema holding the queue's tables (`nest_queue_jobs`, `nest_queue_queues`,
   * `nest_queue_schedules`) and naming its LISTEN/NOTIFY channel (`<schema>_jobs_due`). Letters, digits and
   * underscores, at most 50 characters. Default `'nest_queue'`.
   */
  schema?: string;
  /**
   * `false`: apply no migration at boot, as the module option `migrate: false`; the schema must already be at the
   * version this build needs (run `getPostgresSchemaSql(schema)` or `getMigrations('postgres', { schema })` in your
   * migrations), or boot rejects with `SchemaOutdatedError`. Use it when the application's database user may not
   * run DDL. Default `true`.
   */
  createSchema?: boolean;
  /**
   * Send the hot statements (claims and enqueues) as named prepared statements, so the server
   * parses and plans each of them once per connection instead of at every call. Set `false` behind a proxy that pools connections per transaction and
   * cannot keep prepared statements (PgBouncer before 1.21 in `transaction` mode); the module also falls back to
   * unnamed statements by itself, with a warning, the first time the server refuses one. Applies next to
   * `dataSource` too. Default `true`.
   */
  preparedStatements?: boolean;
}
