/**
 * Global setup and teardown of the jest `postgres` project: names this run's schemas, drops them afterwards,
 * and drops what crashed runs left behind (older than two hours, so a parallel run keeps its own).
 */
import { DataSource } from 'typeorm';
import { POSTGRES_RUN_ENV, TEST_SCHEMA_PREFIX, postgresTestUrl } from './test-backend';

const STALE_AFTER_MS = 2 * 3600_000;

async function withDatabase(work: (dataSource: DataSource) => Promise<void>): Promise<void> {
  const dataSource = new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 });
  await dataSource.initialize();
  try {
    await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function dropSchemas(dataSource: DataSource, keep: (schema: string) => boolean): Promise<number> {
  const rows: { nspname: string }[] = await dataSource.query(
    `SELECT nspname FROM pg_catalog.pg_namespace WHERE left(nspname, length($1)) = $1`,
    [TEST_SCHEMA_PREFIX],
  );
  let dropped = 0;
  // One schema per statement: dropping hundreds in one transaction could exhaust the lock table.
  for (const { nspname } of rows) {
    if (keep(nspname)) continue;
    await dataSource.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    dropped++;
  }
  return dropped;
}

/** Names the run and clears stale schemas. */
export async function setupPostgresTestSchemas(): Promise<void> {
  const run = Date.now().toString(36);
  process.env[POSTGRES_RUN_ENV] = run;
  await withDatabase(async (dataSource) => {
    await dropSchemas(dataSource, (schema) => {
      const started = parseInt(schema.slice(TEST_SCHEMA_PREFIX.length).split('_')[0], 36);
      return Number.isFinite(started) && Date.now() - started < STALE_AFTER_MS;
    });
  });
}

/** Drops this run's schemas. */
export async function teardownPostgresTestSchemas(): Promise<void> {
  const run = process.env[POSTGRES_RUN_ENV];
  if (!run) return;
  await withDatabase(async (dataSource) => {
    await dropSchemas(dataSource, (schema) => !schema.startsWith(`${TEST_SCHEMA_PREFIX}${run}_`));
  });
}
