/**
 * Migrated databases for tests that are not about migrations. Migrating a fresh database from step 1 is most of an
 * app's boot (on the shared 2-core machine about 40 ms of a 50 ms SQLite boot and 215 ms of a 245 ms PostgreSQL one,
 * see test/bench/setup-cost.bench.ts), and the suite boots hundreds of apps. So:
 *
 * - SQLite: the e2e project's global setup migrates one template file per run with the library's own steps
 *   (`getMigrations('sqlite')`, what a user who migrates by hand runs), and a test database is a copy of it.
 * - PostgreSQL: a schema has no cheap copy (no `CREATE SCHEMA ... TEMPLATE`, and a database per test is dearer), so
 *   the global setup migrates a template schema with the library's steps (`getMigrations('postgres')`, in one round
 *   trip, without the boot's checks, lock and per-step transactions) and a test schema is made by the script of its
 *   final DDL, proven equal to it (postgres-template.ts).
 *
 * Either way the app still runs its schema check at boot and finds the schema current and recorded. Files opt in
 * (`perTestApp(backend, MIGRATED)`); tests of migrations themselves keep fresh databases. No jest globals here: the
 * global setup imports this file.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { getMigrations } from '../../lib/storage/get-migrations';

/** Environment variable naming this run's migrated SQLite template (set by the global setup, read by the workers). */
export const SQLITE_TEMPLATE_ENV = 'QUEUE_TEST_SQLITE_TEMPLATE';

/**
 * Migrates a SQLite template in `dir` with the library's published steps, each in one transaction as the library
 * applies them, in WAL mode as the library leaves a file; names it in `QUEUE_TEST_SQLITE_TEMPLATE`.
 */
export function buildSqliteTemplate(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const migrations = getMigrations('sqlite');
  const path = join(dir, `template-v${migrations.length}.sqlite`);
  const connection = new BetterSqlite3(path);
  try {
    connection.pragma('journal_mode = WAL');
    for (const migration of migrations) connection.transaction(() => migration.sql.forEach((sql) => connection.exec(sql)))();
    // Everything into the main file: a copy of the file alone is then the whole database.
    connection.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    connection.close();
  }
  process.env[SQLITE_TEMPLATE_ENV] = path;
  return path;
}

/**
 * Puts a migrated database at `path` (which must not exist yet): a copy of the run's template. Returns false when
 * this process has no template (a run without the e2e global setup): the database stays fresh and the app migrates it.
 */
export function copySqliteTemplate(path: string): boolean {
  const template = process.env[SQLITE_TEMPLATE_ENV];
  if (!template || !existsSync(template)) return false;
  copyFileSync(template, path);
  return true;
}

/** The slice of pg's `Pool` used here (the repository has no pg typings). */
interface PgPool {
  query(sql: string, params?: unknown[]): Promise<unknown>;
  on(event: 'error', listener: (error: Error) => void): void;
}

interface PgPoolConfig {
  connectionString: string;
  max: number;
  allowExitOnIdle: boolean;
  idleTimeoutMillis: number;
}

let pool: PgPool | undefined;

/** This process's one connection for making test schemas: idle, it does not keep the process alive at its end. */
export function postgresTestPool(url: string): PgPool {
  if (pool) return pool;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Pool } = require('pg') as { Pool: new (config: PgPoolConfig) => PgPool };
  const created = new Pool({ connectionString: url, max: 1, allowExitOnIdle: true, idleTimeoutMillis: 2000 });
  // An idle connection ended by the server (a test that terminates backends) would otherwise be an unhandled
  // 'error' event that ends the worker; pg has already discarded it, so the next call simply connects again.
  created.on('error', (error) => process.stderr.write(`template-database: idle PostgreSQL connection lost: ${error.message}\n`));
  pool = created;
  return created;
}

/** Applies every PostgreSQL step to `schema` (new) in one round trip: one implicit transaction, as a script would run. */
export async function migratePostgresSchema(url: string, schema: string): Promise<void> {
  const sql = getMigrations('postgres', { schema }).flatMap((migration) => migration.sql);
  await postgresTestPool(url).query(sql.join(';\n'));
}
