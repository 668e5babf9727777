/**
 * Which backend this test run exercises. The jest config runs every test file twice: in the `sqlite` project,
 * and in the `postgres` project, whose setup (test/support/postgres-backend.setup.ts) maps the SQLite file of
 * each app to a PostgreSQL schema of its own. The same setup is preloaded into child processes, which import
 * this file too: no jest globals here (they live in describe-backend.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** The backends the suite runs against. */
export type TestBackend = 'sqlite' | 'postgres';

/** Environment variable naming the SQLite driver of the run: unset or `sqlite3`, or `better-sqlite3`. */
export const SQLITE_DRIVER_ENV = 'QUEUE_TEST_SQLITE_DRIVER';

/** The SQLite driver this test file's apps use (the `better-sqlite3` jest project sets it). */
export function testSqliteDriver(): 'sqlite3' | 'better-sqlite3' {
  return process.env[SQLITE_DRIVER_ENV] === 'better-sqlite3' ? 'better-sqlite3' : 'sqlite3';
}

/** Environment variable naming the backend of this test file (set by each project's setup file). */
export const BACKEND_ENV = 'QUEUE_TEST_BACKEND';

/** Environment variable with the PostgreSQL URL of the tests. */
export const POSTGRES_URL_ENV = 'QUEUE_TEST_POSTGRES_URL';

/** Environment variable naming this run's schemas (set by the postgres project's global setup). */
export const POSTGRES_RUN_ENV = 'QUEUE_TEST_POSTGRES_RUN';

/** Prefix of every schema the tests create, so leftovers of crashed runs can be found and dropped. */
export const TEST_SCHEMA_PREFIX = 'qt_';

/** The PostgreSQL server of the tests: trust auth on the local machine unless QUEUE_TEST_POSTGRES_URL says otherwise. */
export function postgresTestUrl(): string {
  return process.env[POSTGRES_URL_ENV] || 'postgres://postgres@127.0.0.1:5432/test';
}

/** The backend this test file runs against. */
export function testBackend(): TestBackend {
  return process.env[BACKEND_ENV] === 'postgres' ? 'postgres' : 'sqlite';
}

/** The schema standing in for a SQLite file: the same path gives the same schema, in every process of the run. */
export function postgresSchemaFor(database: string): string {
  const run = process.env[POSTGRES_RUN_ENV] || 'norun';
  const identity = database === ':memory:' ? randomBytes(8).toString('hex') : createHash('sha1').update(database).digest('hex').slice(0, 16);
  return `${TEST_SCHEMA_PREFIX}${run}_${identity}`;
}

/** Extra `node` arguments for a child process, so it runs against the same backend as its test. */
export function backendPreloadArgs(): string[] {
  if (testBackend() === 'postgres') return ['-r', join(__dirname, 'postgres-backend.setup.ts')];
  return testSqliteDriver() === 'better-sqlite3' ? ['-r', join(__dirname, 'better-sqlite3-driver.setup.ts')] : [];
}
