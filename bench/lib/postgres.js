'use strict';
// The local PostgreSQL server of the PostgreSQL scenario: 127.0.0.1:5432, user postgres (trust auth). Everything
// runs in a dedicated database, queue_bench (created once from the `test` database), in one schema per system,
// dropped and created afresh for every run and dropped at the end. No other database is touched.
const { Client } = require('pg');

const ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/test';
const BENCH_DB = 'queue_bench';
const PG_URL = `postgres://postgres@127.0.0.1:5432/${BENCH_DB}`;
/** Schema of each system in queue_bench. */
const SCHEMAS = { library: 'bench_library', pgboss: 'bench_pgboss', graphile: 'bench_graphile', bullmq: 'bench_bullmq' };

/** Runs `fn(client)` on a fresh connection to `url`, then closes it. */
async function withClient(url, fn) {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Creates queue_bench when missing; returns the server version. Rejects when the server is not reachable. */
async function ensureBenchDatabase() {
  return withClient(ADMIN_URL, async (client) => {
    const { rows } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [BENCH_DB]);
    if (rows.length === 0) await client.query(`CREATE DATABASE ${BENCH_DB}`);
    return (await client.query('SHOW server_version')).rows[0].server_version.split(' ')[0];
  });
}

/** Drops the given schemas of queue_bench (the systems create them again at boot). */
function dropSchemas(names) {
  return withClient(PG_URL, async (client) => {
    for (const name of names) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
  });
}

/**
 * ANALYZEs every table of a schema. Run after the bulk enqueue, before the clock starts: a running system's tables
 * have been analyzed by autovacuum, while a table created moments ago has no statistics, and the plans the
 * systems' claims get then depend on when autovacuum (naptime 1 min) happens to wake up during the run.
 */
function analyzeSchema(schema) {
  return withClient(PG_URL, async (client) => {
    const { rows } = await client.query("SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE schemaname = $1", [
      schema,
    ]);
    if (rows.length) await client.query(`ANALYZE ${rows.map((row) => row.name).join(', ')}`);
  });
}

/** The first column of the first row of `sql`, as a number. */
async function scalar(client, sql, params = []) {
  const { rows } = await client.query(sql, params);
  return Number(Object.values(rows[0])[0]);
}

module.exports = { PG_URL, BENCH_DB, SCHEMAS, withClient, ensureBenchDatabase, dropSchemas, analyzeSchema, scalar };
