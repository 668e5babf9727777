import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { PostgresQueueOptions } from '../interfaces/postgres-queue-options.interface';
import { SqliteQueueModuleOptions } from '../interfaces/sqlite-queue-module-options.interface';
import { DEFAULT_BACKOFF, MODULE_DEFAULTS } from '../sqlite-queue.constants';
import { validatePostgresOptions } from '../storage/postgres/validate-postgres-options';
import { backoffProblem } from '../utils/backoff.util';
import { retentionProblem } from '../utils/retention.util';
import { MAX_TIMER_MS, describeValue, isNonNegativeFinite, isPositiveInteger, isTimerDuration } from '../utils/validation.util';
import { assertDriverUsable, defaultSqliteDriver } from './database-driver';
import { InstalledPackages, installedPackages } from './installed-packages';

/** Module options after validation, with every default filled in. */
export interface ResolvedModuleOptions extends Required<Omit<SqliteQueueModuleOptions, 'dataSource' | 'postgres'>> {
  dataSource: SqliteQueueModuleOptions['dataSource'];
  /** Set when the PostgreSQL backend runs on a connection the module opens (or for the schema of a borrowed one). */
  postgres: PostgresQueueOptions | undefined;
  backoff: BackoffOptions;
}

const MS_OPTIONS = ['pollInterval', 'leaseDuration'] as const;

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
  const resolved: ResolvedModuleOptions = {
    database: given.database ?? MODULE_DEFAULTS.database,
    driver: given.driver ?? defaultSqliteDriver(packages),
    dataSource: given.dataSource,
    postgres: undefined,
    pollInterval: given.pollInterval ?? MODULE_DEFAULTS.pollInterval,
    batchWindow: given.batchWindow ?? MODULE_DEFAULTS.batchWindow,
    batchSize: given.batchSize ?? MODULE_DEFAULTS.batchSize,
    leaseDuration: given.leaseDuration ?? MODULE_DEFAULTS.leaseDuration,
    shutdownTimeout: given.shutdownTimeout ?? MODULE_DEFAULTS.shutdownTimeout,
    processing: given.processing ?? MODULE_DEFAULTS.processing,
    maxAttempts: given.maxAttempts ?? MODULE_DEFAULTS.maxAttempts,
    backoff: given.backoff ?? DEFAULT_BACKOFF,
    removeOnComplete: given.removeOnComplete ?? false,
    removeOnFail: given.removeOnFail ?? false,
    workerId: given.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
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
      throw new InvalidModuleOptionsError(name, `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(resolved[name])}`);
    }
  }
  for (const name of ['batchWindow', 'shutdownTimeout'] as const) {
    if (!(isNonNegativeFinite(resolved[name]) && resolved[name] <= MAX_TIMER_MS)) {
      throw new InvalidModuleOptionsError(name, `must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${describeValue(resolved[name])}`);
    }
  }
  if (!isPositiveInteger(resolved.batchSize)) {
    throw new InvalidModuleOptionsError('batchSize', `must be a positive integer, got ${describeValue(resolved.batchSize)}`);
  }
  if (!isPositiveInteger(resolved.maxAttempts)) {
    throw new InvalidModuleOptionsError('maxAttempts', `must be a positive integer, got ${describeValue(resolved.maxAttempts)}`);
  }
  if (typeof resolved.processing !== 'boolean') {
    throw new InvalidModuleOptionsError('processing', `must be a boolean, got ${describeValue(resolved.processing)}`);
  }
  if (typeof resolved.workerId !== 'string' || resolved.workerId.length === 0) {
    throw new InvalidModuleOptionsError('workerId', 'must be a non-empty string');
  }
  const problem = backoffProblem(resolved.backoff);
  if (problem) throw new InvalidModuleOptionsError('backoff', problem);
  for (const name of ['removeOnComplete', 'removeOnFail'] as const) {
    const retention = retentionProblem(resolved[name]);
    if (retention) throw new InvalidModuleOptionsError(name, retention);
  }
  return resolved;
}

function isDataSourceLike(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'driver' in value && typeof (value as { query?: unknown }).query === 'function';
}
