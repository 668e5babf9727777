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

/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100;

/**
 * CPU time (user + system, ms) the server has spent so far: `backends`, the sessions connected to queue_bench (their
 * process titles name the database), and `shared`, the server's own processes (WAL writer, checkpointer, background
 * writer, autovacuum), which other databases' work moves too. Read from /proc, so only with a local server on Linux
 * (null otherwise). A backend that exits between two readings takes its time with it: read both ends while the
 * measured sessions are connected.
 */
function serverCpuMs() {
  const fs = require('node:fs');
  let entries;
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  let backends = 0;
  let shared = 0;
  for (const pid of entries) {
    let title;
    let stat;
    try {
      title = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!title.startsWith('postgres: ')) continue;
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // it exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    const ms = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
    if (title.includes(` ${BENCH_DB} `)) backends += ms;
    // Other databases' sessions (`postgres: user database host(port) state`, or `[local]`) are not the bench's.
    else if (!/^postgres: \S+ \S+ (\[local\]|[\d.:a-f]+\(\d+\))/.test(title)) shared += ms;
  }
  return { backends, shared };
}

/**
 * Opens a pool's `size` connections before a clock starts: `size` queries at once through `query` (each takes its own
 * connection: the pool opens one per query until it holds `size`), so none is opened later, inside a timed window.
 */
async function openConnections(query, size) {
  await Promise.all(Array.from({ length: size }, () => query('SELECT 1')));
}

module.exports = {
  PG_URL,
  BENCH_DB,
  SCHEMAS,
  withClient,
  ensureBenchDatabase,
  dropSchemas,
  analyzeSchema,
  scalar,
  serverCpuMs,
  openConnections,
};
