/**
 * The PostgreSQL server and schema naming of the tests (the backends themselves are in backends.ts). Child
 * processes import this file too: no jest globals here.
 */
import { createHash, randomBytes } from 'node:crypto';

/** Environment variable with the PostgreSQL URL of the tests. */
export const POSTGRES_URL_ENV = 'QUEUE_TEST_POSTGRES_URL';

/** Environment variable naming this run's schemas (set by the e2e project's global setup). */
export const POSTGRES_RUN_ENV = 'QUEUE_TEST_POSTGRES_RUN';

/** Prefix of every schema the tests create, so leftovers of crashed runs can be found and dropped. */
export const TEST_SCHEMA_PREFIX = 'qt_';

/** The PostgreSQL server of the tests: trust auth on the local machine unless QUEUE_TEST_POSTGRES_URL says otherwise. */
export function postgresTestUrl(): string {
  return process.env[POSTGRES_URL_ENV] || 'postgres://postgres@127.0.0.1:5432/test';
}

/** The schema of a test database: the same path gives the same schema, in every process of the run. */
export function postgresSchemaFor(database: string): string {
  const run = process.env[POSTGRES_RUN_ENV] || 'norun';
  const identity =
    database === ':memory:' ? randomBytes(8).toString('hex') : createHash('sha1').update(database).digest('hex').slice(0, 16);
  return `${TEST_SCHEMA_PREFIX}${run}_${identity}`;
}
