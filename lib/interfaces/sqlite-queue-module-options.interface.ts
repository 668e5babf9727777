import { QueueLimits } from './queue-limits.interface';
import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency, Type } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { BackoffOptions } from './backoff-options.interface';
import { PostgresQueueOptions } from './postgres-queue-options.interface';
import { RetentionOption } from './retention-options.interface';

/** The SQLite drivers the module can open a DataSource with. */
export type SqliteDriverName = 'sqlite3' | 'better-sqlite3';

/** Options of `SqliteQueueModule.forRoot()`. Every one has a default. */
export interface SqliteQueueModuleOptions {
  /** SQLite file path, or `':memory:'`. Default `'queue.sqlite'` in the working directory. Ignored with `dataSource`. */
  database?: string;
  /**
   * The SQLite driver of the DataSource the module opens: `'sqlite3'` (node-sqlite3, asynchronous: SQL runs off
   * the event loop) or `'better-sqlite3'` (synchronous, a little faster, and a lock held by another process blocks
   * the event loop). With either, jobs added in this process wake the poller directly and the fallback poll covers
   * other processes. Install the one you choose. Default `'sqlite3'` on TypeORM 0.3 and `'better-sqlite3'` on TypeORM 1,
   * which has no `sqlite3` driver (asking for it there fails with `UnsupportedDriverError`). Ignored with `dataSource`.
   */
  driver?: SqliteDriverName;
  /**
   * Reuse a TypeORM DataSource of type `sqlite` or `better-sqlite3` instead of opening one. The module initialises it if
   * needed, adds its own table, and never closes it (its owner does). On a `sqlite` one, SQLite's update hook also
   * wakes the poller when the application inserts jobs itself through that connection. A DataSource of type `postgres` selects the
   * PostgreSQL backend (see `postgres` for its schema settings).
   */
  dataSource?: DataSource;
  /**
   * Run the queue on PostgreSQL instead of SQLite: `{ url?, host?, port?, username?, password?, database?, ssl?,
   * poolSize?, schema?, createSchema? }`. The module opens its own DataSource (TypeORM `postgres` driver; install
   * `pg`) and closes it on shutdown. With `dataSource` of type `postgres`, give only `schema` / `createSchema` here.
   * Cannot be combined with `database`. Default: not set (SQLite).
   */
  postgres?: PostgresQueueOptions;
  /** Fallback poll period in ms: bounds how late a job from another process or a due delayed job starts. Default 1000. */
  pollInterval?: number;
  /**
   * Wake-ups within this many ms are merged into one claim. Default 0: wake-ups of the same turn of the
   * event loop merge, and under load those arriving while a claim runs merge into the next one anyway, so a
   * wider window only adds latency.
   */
  batchWindow?: number;
  /** Most jobs one claim may take, across all queues (never more than their free slots). Default 500. */
  batchSize?: number;
  /**
   * How long a claimed job stays owned without a heartbeat, in ms. Default 30000. On SQLite at least
   * `busyTimeout + 1000 + min(pollInterval, (busyTimeout + 1000) / 2)` (6500 ms with the defaults): a heartbeat may
   * wait out the busy timeout for another process's write lock, and the lease must outlast that wait.
   */
  leaseDuration?: number;
  /**
   * SQLite only: how long a statement waits for a lock held by another connection (another process, say) before it
   * fails with SQLITE_BUSY, in ms (SQLite's `busy_timeout`), an integer from 0 to 60000. The module retries its own
   * statements after such a failure; `add()` and admin calls reject with a transient `StorageError`. It sets the
   * shortest legal `leaseDuration`, so e2e tests can pair a short one with short leases (500 ms and pollInterval 100: leases from 1600 ms).
   * On better-sqlite3 the wait blocks the event loop. Applies to a lent SQLite DataSource too; refused with
   * `postgres` or a PostgreSQL DataSource, where it has no meaning. Default 5000.
   */
  busyTimeout?: number;
  /**
   * How long `app.close()` waits for running jobs before aborting them and handing them back, in ms. Default 10000,
   * twice jest's default 5 s hook timeout: in tests set a shorter one (2000), so `app.close()` in an `afterEach`
   * always fits.
   */
  shutdownTimeout?: number;
  /**
   * `true`: this process publishes its job events (added, active, progress, retrying, stalled, completed, failed,
   * cancelled) to the database, and `QueueEvents` / `@QueueEventsListener` classes also receive the events that
   * other processes with this option published, within about `pollInterval`. Events are published only while some
   * process listens (one check per poll otherwise); then one row per 100 ms batch of events, and one read per poll
   * in each listening process. Default `false`: `QueueEvents` carries only this process's events.
   */
  clusterEvents?: boolean;
  /**
   * OpenTelemetry traces (docs/observability.md): with `@opentelemetry/api` installed (an optional peer dependency),
   * every add makes a PRODUCER span `send <queue>` in the caller's context and stores its W3C trace context with the
   * job, and every attempt runs in a CONSUMER span `process <queue>` that continues it, in whichever process runs it.
   * `false`: no span, nothing stored, the package is never loaded. Without the package this option changes nothing.
   * Default `true`.
   */
  telemetry?: boolean;
  /** `false`: this process only produces and inspects; it claims nothing. Default `true`. */
  processing?: boolean;
  /**
   * `false`: boot applies no schema migration; it only checks that the database is at the version this build
   * needs and otherwise rejects with `SchemaOutdatedError` (run `getMigrations()` yourself). Default `true`.
   */
  migrate?: boolean;
  /**
   * How long boot waits for another process's schema migration, in ms, when the schema needs checking or migrating
   * under the migration lock (SQLite's write lock, PostgreSQL's advisory lock), before `app.init()` rejects with
   * `MigrationLockTimeoutError`. Processes booting a database together take turns; the first may take minutes on a
   * large one, and the others wait for it, past SQLite's busy timeout. 0: do not wait. Default 300000 (5 minutes).
   */
  migrationLockTimeout?: number;
  /** `maxAttempts` of jobs that set none and whose queue's processor sets none. Default 3. */
  maxAttempts?: number;
  /** Backoff of retries when neither the job nor its processor sets one. Default exponential, 1000 ms, jitter. */
  backoff?: BackoffOptions;
  /** Retention of completed jobs of queues whose processor sets none. Default `false` (keep all). */
  removeOnComplete?: RetentionOption;
  /** Retention of failed jobs of queues whose processor sets none. Default `false` (keep all). */
  removeOnFail?: RetentionOption;
  /** Identifies this process in `locked_by`. Default `<hostname>:<pid>:<random>`. */
  workerId?: string;
  /**
   * Rate limits and global concurrency by queue name, for queues whose `@Processor` sets none of its own (a
   * processor's `limiter` / `globalConcurrency` win). Every process running a queue should declare the same limits:
   * each claims by the limits it knows. Default none.
   */
  queueLimits?: Record<string, QueueLimits>;
  /**
   * Dead-letter queue of every processor that names none (`@Processor({ deadLetter })` wins): a job that fails for
   * good is also enqueued there. Not applied to that queue itself. Recorded in the database for this process's
   * processors at start, and read from there by whichever process fails the job: needed where the processors run, not
   * in a producer-only process. Default none.
   */
  deadLetter?: string;
  /** Most snoozes (`SnoozeError`) per job; one more fails the job with `SnoozeLimitError`. 0 to 1,000,000. Default 1000. */
  maxSnoozes?: number;
}

/** A class that builds the options, for `forRootAsync({ useClass | useExisting })`. */
export interface SqliteQueueOptionsFactory {
  /** Returns the module options. */
  createSqliteQueueOptions(): Promise<SqliteQueueModuleOptions> | SqliteQueueModuleOptions;
}

/** Options of `SqliteQueueModule.forRootAsync()`. */
export interface SqliteQueueModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Build the options with a factory function. */
  // Nest calls it with the resolved `inject` tokens, whose types it cannot know.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory?: (...args: any[]) => Promise<SqliteQueueModuleOptions> | SqliteQueueModuleOptions;
  /** Providers passed to `useFactory`. */
  inject?: (InjectionToken | OptionalFactoryDependency)[];
  /** Build the options with a new instance of this class. */
  useClass?: Type<SqliteQueueOptionsFactory>;
  /** Build the options with an existing provider. */
  useExisting?: Type<SqliteQueueOptionsFactory>;
}
