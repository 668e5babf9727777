import { statSync } from 'node:fs';
import type { QueueAdmin } from '../admin/queue-admin.service';
import { CliUsageError } from '../errors/cli-usage.error';
import { DatabaseFileMissingError } from '../errors/database-file-missing.error';
import { DatabaseOpenError } from '../errors/database-open.error';
import { NotAQueueDatabaseError } from '../errors/not-a-queue-database.error';
import { SchemaOutdatedError } from '../errors/schema-outdated.error';
import { SchemaTooNewError } from '../errors/schema-too-new.error';
import { SqliteDriverName } from '../interfaces/sqlite-queue-module-options.interface';
import { SqliteQueueModuleOptions } from '../interfaces/sqlite-queue-module-options.interface';
import { assertDriverInstalled, defaultSqliteDriver } from '../runtime/database-driver';
import { installedPackages } from '../runtime/installed-packages';
import type { QueueRuntime } from '../runtime/queue-runtime';
import type { QueueStorage } from '../storage/queue-storage.interface';
import { JOBS_TABLE } from '../table-names.constants';
import { routeLibraryLogs } from './cli-logger';

/** `DEFAULT_POSTGRES_SCHEMA`, without loading the PostgreSQL schema module (and Nest) for a `--help`. */
export const DEFAULT_SCHEMA = 'nest_queue';

/** The database a command works on, opened through the library's own runtime and storage. */
export interface CliDatabase {
  /** The library's admin service over it: every control goes through it, as in an application. */
  readonly admin: QueueAdmin;
  /** The storage under the admin, for the reads the admin does not offer (oldest due job, limits). */
  readonly storage: QueueStorage;
  /** Which backend. */
  readonly backend: 'sqlite' | 'postgres';
  /** The file, or the server and schema, for messages. */
  readonly label: string;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** The global options that say which database: `--database file [--driver d]` or `--postgres url [--schema s]`. */
export interface DatabaseSelection {
  database?: string;
  driver?: string;
  postgres?: string;
  schema?: string;
}

/**
 * The module options for the selected database, never migrating: a command other than `migrate` must not change
 * a schema, and an old or missing one is reported. Bad combinations are usage errors; a SQLite file that does not
 * exist is refused before anything opens it (opening would create it).
 */
export function moduleOptionsFor(command: string, selection: DatabaseSelection, migrate: boolean): SqliteQueueModuleOptions {
  const { database, driver, postgres, schema } = selection;
  if (database !== undefined && postgres !== undefined) throw new CliUsageError(command, 'give --database or --postgres, not both');
  if (postgres !== undefined) {
    if (driver !== undefined) throw new CliUsageError(command, '--driver is for SQLite (--database)');
    assertPostgresUrl(command, '--postgres', postgres);
    return { postgres: { url: postgres, schema: schema ?? DEFAULT_SCHEMA, poolSize: 2 }, migrate, processing: false };
  }
  if (database === undefined) throw new CliUsageError(command, 'say which database: --database <file> or --postgres <url>');
  if (schema !== undefined) throw new CliUsageError(command, '--schema is for PostgreSQL (--postgres)');
  if (driver !== undefined && driver !== 'sqlite3' && driver !== 'better-sqlite3') {
    throw new CliUsageError(command, `--driver must be sqlite3 or better-sqlite3, got ${JSON.stringify(driver)}`);
  }
  assertSqliteFilePath(database);
  return { database, driver: (driver as SqliteDriverName | undefined) ?? installedSqliteDriver(), migrate, processing: false };
}

/**
 * Refuses a SQLite path the CLI must not open: one that names nothing (opening it would create the file) and a folder
 * (SQLite opens a folder read-only, then fails its first read with a bare disk I/O error that names no cause).
 */
export function assertSqliteFilePath(path: string): void {
  const found = statSync(path, { throwIfNoEntry: false });
  if (found === undefined) throw new DatabaseFileMissingError(path);
  if (found.isDirectory()) {
    throw new DatabaseOpenError(path, Object.assign(new Error(`${path} is a folder, not a file`), { code: 'EISDIR' }));
  }
}

/**
 * Refuses a `--postgres` (or `--to`) value that is not a postgres:// URL: the driver would read a bare `host:port` or
 * a word as something else and fail later with a misleading "the host name does not resolve". The value is not
 * repeated in the message: it may hold a password.
 */
export function assertPostgresUrl(command: string, option: string, url: string): void {
  let protocol: string | null = null;
  try {
    protocol = new URL(url).protocol;
  } catch {
    // Not a URL at all: refused below like any other scheme.
  }
  if (protocol !== 'postgres:' && protocol !== 'postgresql:') {
    throw new CliUsageError(
      command,
      `${option} must be a URL such as postgres://user:password@host:5432/db (the value given is not repeated: it may hold a password)`,
    );
  }
}

/** The application's default SQLite driver, or the other one when only that is installed (a CLI has no forRoot to say). */
export function installedSqliteDriver(): SqliteDriverName {
  const preferred = defaultSqliteDriver(installedPackages);
  const other: SqliteDriverName = preferred === 'sqlite3' ? 'better-sqlite3' : 'sqlite3';
  return installedPackages.has(preferred) || !installedPackages.has(other) ? preferred : other;
}

/**
 * A new `QueueRuntime` for the options: loaded on demand, so `--help` and usage errors answer without loading
 * Nest and TypeORM (seconds on a busy machine).
 */
export async function newRuntime(options: SqliteQueueModuleOptions): Promise<QueueRuntime> {
  await routeLibraryLogs();
  const { QueueRuntime } = await import('../runtime/queue-runtime');
  return new QueueRuntime(options);
}

/**
 * Reads a SQLite file read-only before the library's storage opens it (which sets it up: WAL, a probe write):
 * a file with no queue tables is refused untouched, and so is a schema a newer version made.
 */
export async function checkSqliteFile(path: string, driver: SqliteDriverName): Promise<void> {
  // The read-only file loads the driver itself: a missing one would surface as the require's "Cannot find module".
  assertDriverInstalled(driver, installedPackages);
  const { SqliteReadOnlyFile } = await import('../storage/sqlite/sqlite-read-only-file');
  const { recordedSqliteVersion, sqliteTableExists } = await import('../storage/sqlite/sql/promote-source.sql');
  const { SQLITE_SCHEMA_VERSION } = await import('../storage/sqlite/sqlite-schema');
  const file = await SqliteReadOnlyFile.open(path, driver);
  try {
    const version = await recordedSqliteVersion(file);
    if (version > SQLITE_SCHEMA_VERSION) throw new SchemaTooNewError(version, SQLITE_SCHEMA_VERSION);
    if (version === 0 && !(await sqliteTableExists(file, JOBS_TABLE))) throw new NotAQueueDatabaseError(path);
  } finally {
    await file.close().catch(() => undefined);
  }
}

/**
 * Opens the selected database through `QueueRuntime`, as a process without processors does; `readOnly`: a SQLite
 * file is opened read-only (a command that only reads changes no byte of it, nor its journal mode).
 */
export async function openCliDatabase(command: string, selection: DatabaseSelection, readOnly = false): Promise<CliDatabase> {
  const options = moduleOptionsFor(command, selection, false);
  if (!options.postgres) await checkSqliteFile(options.database!, options.driver!);
  const runtime = await newRuntime(options);
  runtime.readOnlyStorage = readOnly;
  const { QueueAdmin } = await import('../admin/queue-admin.service');
  const label = options.postgres ? `schema "${options.postgres.schema}" of ${redactUrl(options.postgres.url!)}` : options.database!;
  let storage: QueueStorage;
  try {
    storage = await runtime.storage();
  } catch (error) {
    await runtime.onApplicationShutdown().catch(() => undefined);
    // Version 0 is no queue schema at all: for a command that reads or controls jobs, not a queue database.
    if (error instanceof SchemaOutdatedError && error.databaseVersion === 0) throw new NotAQueueDatabaseError(label);
    throw error;
  }
  return {
    admin: new QueueAdmin(runtime),
    storage,
    backend: options.postgres ? 'postgres' : 'sqlite',
    label,
    close: () => runtime.onApplicationShutdown(),
  };
}

/** A connection URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(the --postgres url)';
  }
}
