import { buildChildScripts } from './child-build';
import { join } from 'node:path';
import { setupPostgresTestSchemas } from './postgres-test-schemas';
import { buildSqliteTemplate } from './template-database';

/** The environment variable jest.config.js sets when PostgreSQL did not answer (see probe-postgres.js). */
const POSTGRES_SKIPPED_ENV = 'QUEUE_TEST_POSTGRES_SKIPPED';

/**
 * Jest globalSetup of the `e2e` project: compiles the child processes' scripts once for the run, whichever backends
 * run, migrates the SQLite template the tests copy (template-database.ts; inside the build folder, so the teardown
 * removes it with the build), and names this run's PostgreSQL schemas (clearing stale ones) when the server answered.
 */
export default async function setupE2e(): Promise<void> {
  const build = buildChildScripts();
  buildSqliteTemplate(join(build, 'templates'));
  if (!process.env[POSTGRES_SKIPPED_ENV]) await setupPostgresTestSchemas();
}
