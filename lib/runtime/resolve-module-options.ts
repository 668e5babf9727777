import { isQueueName } from '../utils/queue-name.util';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { PostgresQueueOptions } from '../interfaces/postgres-queue-options.interface';
import { SqliteQueueModuleOptions } from '../interfaces/sqlite-queue-module-options.interface';
import { DEFAULT_BACKOFF, MAX_BUSY_TIMEOUT_MS, MODULE_DEFAULTS } from '../module-defaults.constants';
import { validatePostgresOptions } from '../storage/postgres/validate-postgres-options';
import { backoffInputProblem } from '../utils/backoff.util';
import { retentionProblem } from '../housekeeping/retention-rule';
import { queueLimitsProblem } from '../utils/queue-limits.util';
import { QueueLimits } from '../interfaces/queue-limits.interface';
import { closestName, didYouMean } from '../utils/closest-name.util';
import {
  LIMITS,
  MAX_TIMER_MS,
  describeValue,
  isIntegerInRange,
  isNonNegativeFinite,
  isTimerDuration,
  unstorableTextProblem,
} from '../utils/validation.util';
import { assertDriverUsable, defaultSqliteDriver } from './database-driver';
import { InstalledPackages, installedPackages } from './installed-packages';

/** Module options after validation, with every default filled in. */
export interface ResolvedModuleOptions extends Required<Omit<SqliteQueueModuleOptions, 'dataSource' | 'postgres' | 'deadLetter'>> {
  dataSource: SqliteQueueModuleOptions['dataSource'];
  /** The default dead-letter queue, or null for none. */
  deadLetter: string | null;
  /** Set when the PostgreSQL backend runs on a connection the module opens (or for the schema of a borrowed one). */
  postgres: PostgresQueueOptions | undefined;
  backoff: BackoffOptions;
}

const MS_OPTIONS = ['pollInterval', 'leaseDuration'] as const;

/** Every option `forRoot` / `forRootAsync` takes; anything else is a typo that would otherwise be ignored. */
const KNOWN_OPTIONS: readonly (keyof SqliteQueueModuleOptions)[] = [
  'database',
  'driver',
  'dataSource',
  'postgres',
  'pollInterval',
  'batchWindow',
  'batchSize',
  'leaseDuration',
  'busyTimeout',
  'shutdownTimeout',
  'processing',
  'migrate',
  'migrationLockTimeout',
  'maxAttempts',
  'backoff',
  'removeOnComplete',
  'removeOnFail',
  'workerId',
  'queueLimits',
  'clusterEvents',
  'telemetry',
  'deadLetter',
  'maxSnoozes',
];

/** Slack on top of the busy timeout and one heartbeat interval, for the event loop and the statements queued before. */
const LEASE_MARGIN_MS = 1000;

/**
 * Shortest lease that a live worker on SQLite keeps while another process holds the write lock: its heartbeat
 * runs every min(leaseDuration / 3, pollInterval) ms and may wait up to the busy timeout for the lock, so the
 * lease must outlast both (plus a margin), or it expires under a running job and another process runs the job
 * again. Solving leaseDuration - min(leaseDuration / 3, pollInterval) >= busy + margin gives this.
 */
export function minimumSqliteLease(pollInterval: number, busyTimeout: number): number {
  const needed = busyTimeout + LEASE_MARGIN_MS;
  return needed + Math.min(pollInterval, needed / 2);
}

/**
 * Validates the user's options and fills the defaults; throws `InvalidModuleOptionsError`, or
 * `UnsupportedDriverError` / `DriverNotInstalledError` when the database driver cannot be loaded. `packages`
 * describes what the application has installed (tests pass a stand-in).
 */
export function resolveModuleOptions(
  options: SqliteQueueModuleOptions | undefined | null,
  packages: InstalledPackages = installedPackages,
): ResolvedModuleOptions {
  if (options !== undefined && options !== null && typeof options !== 'object') {
    throw new InvalidModuleOptionsError('options', `must be an object, got ${describeValue(options)}`);
  }
  const given = options ?? {};
  for (const key of Object.keys(given)) {
    if (!(KNOWN_OPTIONS as readonly string[]).includes(key)) {
      const suggestion = closestName(key, KNOWN_OPTIONS);
      throw new InvalidModuleOptionsError(
        key,
        `is not an option${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; known: ${KNOWN_OPTIONS.join(', ')}`,
      );
    }
  }
  const resolved: ResolvedModuleOptions = {
    database: given.database ?? MODULE_DEFAULTS.database,
    driver: given.driver ?? defaultSqliteDriver(packages),
    dataSource: given.dataSource,
    postgres: undefined,
    pollInterval: given.pollInterval ?? MODULE_DEFAULTS.pollInterval,
    batchWindow: given.batchWindow ?? MODULE_DEFAULTS.batchWindow,
    batchSize: given.batchSize ?? MODULE_DEFAULTS.batchSize,
    leaseDuration: given.leaseDuration ?? MODULE_DEFAULTS.leaseDuration,
    busyTimeout: given.busyTimeout ?? MODULE_DEFAULTS.busyTimeout,
    shutdownTimeout: given.shutdownTimeout ?? MODULE_DEFAULTS.shutdownTimeout,
    clusterEvents: given.clusterEvents ?? false,
    telemetry: given.telemetry ?? true,
    processing: given.processing ?? MODULE_DEFAULTS.processing,
    migrate: given.migrate ?? true,
    migrationLockTimeout: given.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout,
    maxAttempts: given.maxAttempts ?? MODULE_DEFAULTS.maxAttempts,
    backoff: given.backoff ?? DEFAULT_BACKOFF,
    removeOnComplete: given.removeOnComplete ?? false,
    removeOnFail: given.removeOnFail ?? false,
    workerId: given.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    queueLimits: given.queueLimits ?? {},
    deadLetter: given.deadLetter ?? null,
    maxSnoozes: given.maxSnoozes ?? MODULE_DEFAULTS.maxSnoozes,
  };
  if (typeof resolved.database !== 'string' || resolved.database.length === 0) {
    throw new InvalidModuleOptionsError('database', `must be a file path or ':memory:', got ${describeValue(resolved.database)}`);
  }
  if (resolved.driver !== 'sqlite3' && resolved.driver !== 'better-sqlite3') {
    throw new InvalidModuleOptionsError('driver', `must be 'sqlite3' or 'better-sqlite3', got ${describeValue(resolved.driver)}`);
  }
  if (resolved.dataSource !== undefined && !isDataSourceLike(resolved.dataSource)) {
    throw new InvalidModuleOptionsError('dataSource', 'must be a TypeORM DataSource');
  }
  resolved.postgres = validatePostgresOptions(given.postgres, { database: given.database, dataSource: resolved.dataSource });
  // Only the connection the module opens itself needs a driver from us: a lent DataSource has loaded its own.
  assertDriverUsable(resolved.dataSource ? undefined : resolved.postgres ? 'pg' : resolved.driver, packages);
  // Every duration feeds a timer: Node fires a timer longer than MAX_TIMER_MS after 1 ms instead.
  for (const name of MS_OPTIONS) {
    if (!isTimerDuration(resolved[name])) {
      throw new InvalidModuleOptionsError(
        name,
        `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(resolved[name])}`,
      );
    }
  }
  if (typeof resolved.clusterEvents !== 'boolean') {
    throw new InvalidModuleOptionsError('clusterEvents', `must be true or false, got ${describeValue(resolved.clusterEvents)}`);
  }
  if (typeof resolved.telemetry !== 'boolean') {
    throw new InvalidModuleOptionsError('telemetry', `must be true or false, got ${describeValue(resolved.telemetry)}`);
  }
  for (const name of ['batchWindow', 'shutdownTimeout', 'migrationLockTimeout'] as const) {
    if (!(isNonNegativeFinite(resolved[name]) && resolved[name] <= MAX_TIMER_MS)) {
      throw new InvalidModuleOptionsError(name, `must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${describeValue(resolved[name])}`);
    }
  }
  const onSqlite = resolved.postgres === undefined && resolved.dataSource?.options.type !== 'postgres';
  if (!onSqlite && given.busyTimeout !== undefined) {
    throw new InvalidModuleOptionsError(
      'busyTimeout',
      "is a SQLite setting (how long a statement waits for another connection's lock) and has no meaning on PostgreSQL: remove it",
    );
  }
  if (!isIntegerInRange(resolved.busyTimeout, 0, MAX_BUSY_TIMEOUT_MS)) {
    const reason = `must be an integer number of ms from 0 to ${MAX_BUSY_TIMEOUT_MS}, got ${describeValue(resolved.busyTimeout)}`;
    throw new InvalidModuleOptionsError('busyTimeout', reason);
  }
  const minimumLease = minimumSqliteLease(resolved.pollInterval, resolved.busyTimeout);
  if (onSqlite && resolved.leaseDuration < minimumLease) {
    throw new InvalidModuleOptionsError(
      'leaseDuration',
      `must be at least ${minimumLease} ms on SQLite with pollInterval ${resolved.pollInterval} and busyTimeout ` +
        `${resolved.busyTimeout}, got ${resolved.leaseDuration}: a heartbeat renews leases every min(leaseDuration / 3, ` +
        `pollInterval) ms and may wait up to the busy timeout for another process's write lock, so a shorter lease can ` +
        'expire under a running job and let another process run it a second time (a shorter busyTimeout allows a shorter lease)',
    );
  }
  if (!isIntegerInRange(resolved.batchSize, 1, LIMITS.batchSize)) {
    const reason = `must be an integer from 1 to ${LIMITS.batchSize}, got ${describeValue(resolved.batchSize)}`;
    throw new InvalidModuleOptionsError('batchSize', reason);
  }
  if (!isIntegerInRange(resolved.maxAttempts, 1, LIMITS.maxAttempts)) {
    const reason = `must be an integer from 1 to ${LIMITS.maxAttempts}, got ${describeValue(resolved.maxAttempts)}`;
    throw new InvalidModuleOptionsError('maxAttempts', reason);
  }
  if (typeof resolved.migrate !== 'boolean') {
    throw new InvalidModuleOptionsError('migrate', `must be a boolean, got ${describeValue(resolved.migrate)}`);
  }
  if (typeof resolved.processing !== 'boolean') {
    throw new InvalidModuleOptionsError('processing', `must be a boolean, got ${describeValue(resolved.processing)}`);
  }
  if (typeof resolved.workerId !== 'string' || resolved.workerId.length === 0 || resolved.workerId.length > 1024) {
    const reason = `must be a non-empty string of at most 1024 characters, got ${describeValue(resolved.workerId)}`;
    throw new InvalidModuleOptionsError('workerId', reason);
  }
  // Stored in locked_by and compared on every outcome write: an altered copy would fence out its own writer.
  const workerIdProblem = unstorableTextProblem(resolved.workerId);
  if (workerIdProblem) throw new InvalidModuleOptionsError('workerId', workerIdProblem);
  const problem = backoffInputProblem(resolved.backoff);
  if (problem) throw new InvalidModuleOptionsError('backoff', problem);
  for (const name of ['removeOnComplete', 'removeOnFail'] as const) {
    const retention = retentionProblem(resolved[name]);
    if (retention) throw new InvalidModuleOptionsError(name, retention);
  }
  validateQueueLimits(resolved.queueLimits);
  if (resolved.deadLetter !== null && !isQueueName(resolved.deadLetter)) {
    throw new InvalidModuleOptionsError(
      'deadLetter',
      `must be a queue name (1 to 128 of A-Z a-z 0-9 _ . : -), got ${describeValue(resolved.deadLetter)}`,
    );
  }
  if (!isIntegerInRange(resolved.maxSnoozes, 0, LIMITS.maxAttempts)) {
    const reason = `must be an integer from 0 to ${LIMITS.maxAttempts}, got ${describeValue(resolved.maxSnoozes)}`;
    throw new InvalidModuleOptionsError('maxSnoozes', reason);
  }
  return resolved;
}

/** The options of one entry of `queueLimits`. */
const QUEUE_LIMIT_KEYS: readonly string[] = ['limiter', 'globalConcurrency', 'groupConcurrency', 'groupLimiter'];

function validateQueueLimits(queueLimits: unknown): void {
  if (typeof queueLimits !== 'object' || queueLimits === null || Array.isArray(queueLimits)) {
    throw new InvalidModuleOptionsError('queueLimits', `must be an object of limits by queue name, got ${describeValue(queueLimits)}`);
  }
  for (const [queue, limits] of Object.entries(queueLimits as Record<string, unknown>)) {
    if (typeof limits !== 'object' || limits === null) {
      throw new InvalidModuleOptionsError(
        `queueLimits.${queue}`,
        `must be { limiter?, globalConcurrency?, groupConcurrency?, groupLimiter? }, got ${describeValue(limits)}`,
      );
    }
    const unknown = Object.keys(limits).find((key) => !QUEUE_LIMIT_KEYS.includes(key));
    if (unknown)
      throw new InvalidModuleOptionsError(
        `queueLimits.${queue}`,
        `has an unknown option "${unknown}"${didYouMean(unknown, QUEUE_LIMIT_KEYS)}; known: ${QUEUE_LIMIT_KEYS.join(', ')}`,
      );
    const problem = queueLimitsProblem(limits as QueueLimits);
    if (problem) throw new InvalidModuleOptionsError(`queueLimits.${queue}`, problem);
  }
}

function isDataSourceLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'driver' in value && typeof (value as { query?: unknown }).query === 'function';
}
