import { buildChildScripts } from './child-build';
import { join } from 'node:path';
import { buildPostgresTemplate } from './postgres-template';
import { setupPostgresTestSchemas } from './postgres-test-schemas';
import { buildSqliteTemplate } from './template-database';
import { POSTGRES_RUN_ENV, TEST_SCHEMA_PREFIX, postgresTestUrl } from './test-backend';

/** The environment variable jest.config.js sets when PostgreSQL did not answer (see probe-postgres.js). */
const POSTGRES_SKIPPED_ENV = 'QUEUE_TEST_POSTGRES_SKIPPED';

/**
 * Jest globalSetup of the `e2e` project: compiles the child processes' scripts once for the run, whichever backends
 * run, migrates the SQLite template the tests copy (template-database.ts; inside the build folder, so the teardown
 * removes it with the build), and, when the server answered, names this run's PostgreSQL schemas (clearing stale
 * ones) and migrates the run's PostgreSQL template (postgres-template.ts; its schemas are the run's, dropped with them).
 */
export default async function setupE2e(): Promise<void> {
  const build = buildChildScripts();
  const templates = join(build, 'templates');
  buildSqliteTemplate(templates);
  if (process.env[POSTGRES_SKIPPED_ENV]) return;
  await setupPostgresTestSchemas();
  const run = `${TEST_SCHEMA_PREFIX}${process.env[POSTGRES_RUN_ENV]}`;
  await buildPostgresTemplate(postgresTestUrl(), `${run}_template`, `${run}_template_check`, templates);
}
