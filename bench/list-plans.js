'use strict';
// The plan and cost of each `admin.getJobs(queue, filters)` the dashboard makes (status, name, group, search, paging),
// on a table of a million jobs, on better-sqlite3 and PostgreSQL. The statement of each call is caught as the library
// sends it (the driver's prepare / query is wrapped), then explained with its own parameters: SQLite's EXPLAIN QUERY
// PLAN, PostgreSQL's EXPLAIN (ANALYZE, BUFFERS). Prints a Markdown table per backend.
//   node bench/list-plans.js          (after `npm run build`; PostgreSQL on 127.0.0.1:5432, database `test`)
// Environment: PLANS_BENCH_ROWS (default 1,000,000), PLANS_BENCH_RUNS (default 3, median), PLANS_BENCH_BACKENDS
// (default better-sqlite3,postgres), PLANS_BENCH_PG_URL, PLANS_BENCH_ONLY (the cases whose label starts so: `sorted`).
// The table: 90 % of the rows in queue `big`, the rest in q1..q9; 90 % completed, 5 % failed, 5 % pending, 0.1 % running;
// names n0..n4 with one row in 1,000 named `rare`; a third of the rows in groups g0..g99, one in 10,000 in `g-rare`.
require('reflect-metadata');

const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { DIST_DIR, freshDbFile, removeDb } = require('./lib/common');

const ROWS = Number(process.env.PLANS_BENCH_ROWS || 1_000_000);
const RUNS = Number(process.env.PLANS_BENCH_RUNS || 3);
const BACKENDS = (process.env.PLANS_BENCH_BACKENDS || 'better-sqlite3,postgres').split(',');
const PG_URL = process.env.PLANS_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const PG_SCHEMA = 'bench_list_plans';
const T = 'nest_queue_jobs';

/** The dashboard's listings: a queue's tab (status), the name filter, a group, the search box, a later page. */
const CASES = [
  ['all, page 1', 'big', {}],
  ['all, page 200 (offset 10,000)', 'big', { offset: 10_000 }],
  ['all, small queue (1 %)', 'q3', {}],
  ['pending', 'big', { status: 'pending' }],
  ['running', 'big', { status: 'running' }],
  ['completed', 'big', { status: 'completed' }],
  ['failed', 'big', { status: 'failed' }],
  ['failed, small queue', 'q3', { status: 'failed' }],
  ['name (20 % of the queue)', 'big', { name: 'n1' }],
  ['rare name (0.1 %)', 'big', { name: 'rare' }],
  ['rare name, failed', 'big', { name: 'rare', status: 'failed' }],
  ['group (0.3 % of the queue)', 'big', { group: 'g3' }],
  ['group, pending', 'big', { group: 'g3', status: 'pending' }],
  ['rare group, rare name', 'big', { group: 'g-rare', name: 'rare' }],
  ['search, found on page 1', 'big', { search: 'example.com' }],
  ['search, absent', 'big', { search: 'no-such-text' }],
  ['search, absent, failed, rare name, group', 'big', { search: 'no-such-text', status: 'failed', name: 'rare', group: 'g3' }],
  // The column headers' orders (getJobs({ orderBy, order })): index-backed ones, then the bounded window.
  ['sorted: id ascending', 'big', { orderBy: 'id', order: 'asc' }],
  ['sorted: completed, id ascending', 'big', { status: 'completed', orderBy: 'id', order: 'asc' }],
  ['sorted: pending by priority', 'big', { status: 'pending', orderBy: 'priority' }],
  ['sorted: pending by priority, page 200', 'big', { status: 'pending', orderBy: 'priority', order: 'asc', offset: 10_000 }],
  ['sorted: group pending by priority', 'big', { group: 'g3', status: 'pending', orderBy: 'priority' }],
  ['sorted: completed by finishedAt', 'big', { status: 'completed', orderBy: 'finishedAt' }],
  ['sorted: failed by finishedAt, ascending', 'big', { status: 'failed', orderBy: 'finishedAt', order: 'asc' }],
  ['sorted: running by attempts', 'big', { status: 'running', orderBy: 'attempts' }],
  ['sorted (window): all by attempts', 'big', { orderBy: 'attempts' }],
  ['sorted (window): completed by createdAt', 'big', { status: 'completed', orderBy: 'createdAt', order: 'asc' }],
  ['sorted (window): group by name', 'big', { group: 'g3', orderBy: 'name' }],
  ['sorted (window): small queue by runAt', 'q3', { orderBy: 'runAt' }],
  ['sorted: search by attempts', 'big', { search: 'example.com', orderBy: 'attempts' }],
].filter(([label]) => !process.env.PLANS_BENCH_ONLY || label.startsWith(process.env.PLANS_BENCH_ONLY));

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The columns of a row `i` as SQL over a series column `i` (both dialects: `||`, `%`, CASE). */
function rowSql(t0) {
  const finished = `CASE WHEN i % 20 < 18 OR i % 20 = 9 THEN ${t0} + i + 5 END`;
  return `CASE WHEN i % 10 = 0 THEN 'q' || (1 + i % 9) ELSE 'big' END,
    CASE WHEN i % 1000 = 19 THEN 'running' WHEN i % 20 = 9 THEN 'failed' WHEN i % 20 = 19 THEN 'pending' ELSE 'completed' END,
    '{"orderId":' || i || ',"email":"user' || i || '@example.com","note":"a short note"}',
    0, ${t0} + i, 1, 3, ${t0} + i, ${t0} + i + 1,
    CASE WHEN i % 1000 = 19 THEN NULL WHEN i % 20 = 19 THEN NULL ELSE ${finished} END,
    ${t0} + i,
    CASE WHEN i % 20 = 9 THEN '{"name":"Error","message":"upstream said 502"}' END,
    CASE WHEN i % 1000 = 7 THEN 'rare' ELSE 'n' || (i % 5) END,
    CASE WHEN i % 10000 = 3 THEN 'g-rare' WHEN i % 3 = 0 THEN 'g' || (i % 100) END,
    CASE WHEN i % 1000 = 19 THEN ${t0} + ${ROWS} * 10 END`;
}
const COLUMNS = `queue, status, data, priority, run_at, attempts, max_attempts, created_at, started_at, finished_at, updated_at, error,
  name, job_group, lease_until`;

async function boot(lib, options) {
  class AppModule {}
  Module({ imports: [lib.QueueModule.forRoot(options)] })(AppModule);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  return { app, admin: app.get(lib.QueueAdmin) };
}

/** Each case through the API, timed, with the last statement on the jobs table it sent. */
async function measure(admin, caught, explain) {
  const rows = [];
  for (const [label, queue, filters] of CASES) {
    const times = [];
    let found = 0;
    for (let run = 0; run < RUNS; run++) {
      caught.length = 0;
      const start = performance.now();
      found = (await admin.getJobs(queue, { limit: 50, ...filters })).length;
      times.push(performance.now() - start);
    }
    const statement = caught.filter((c) => c.sql.includes(T) && /^\s*SELECT/i.test(c.sql)).pop();
    rows.push({ label, ms: median(times), found, plan: statement ? await explain(statement) : '(no statement caught)' });
  }
  return rows;
}

async function sqlite(lib) {
  const Database = require('better-sqlite3');
  const caught = [];
  // Catch what the library prepares and runs: `all` gets the parameters.
  const prepare = Database.prototype.prepare;
  Database.prototype.prepare = function (sql) {
    const statement = prepare.call(this, sql);
    const all = statement.all;
    statement.all = function (...params) {
      caught.push({ sql, params });
      return all.apply(this, params);
    };
    return statement;
  };
  const file = freshDbFile('list-plans.sqlite');
  const { app: migrate } = await boot(lib, { database: file, driver: 'better-sqlite3' });
  await migrate.close();
  const db = new Database(file);
  const start = performance.now();
  db.exec(`WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${ROWS - 1})
    INSERT INTO ${T} (${COLUMNS}) SELECT ${rowSql(Date.now() - ROWS)} FROM s`);
  db.exec('ANALYZE');
  const fillMs = performance.now() - start;
  const { app, admin } = await boot(lib, { database: file, driver: 'better-sqlite3' });
  const rows = await measure(admin, caught, ({ sql, params }) =>
    prepare
      .call(db, `EXPLAIN QUERY PLAN ${sql}`)
      .all(...params)
      .map((step) => step.detail)
      .join('; '),
  );
  await app.close();
  db.close();
  Database.prototype.prepare = prepare;
  removeDb(file);
  return { backend: 'better-sqlite3', fillMs, rows };
}

async function postgres(lib) {
  const pg = require('pg');
  const caught = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (config, values, callback) {
    const sql = typeof config === 'string' ? config : config && config.text;
    if (typeof sql === 'string') caught.push({ sql, params: Array.isArray(values) ? values : (config && config.values) || [] });
    return query.call(this, config, values, callback);
  };
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await query.call(client, `DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  const options = { postgres: { url: PG_URL, schema: PG_SCHEMA } };
  const { app: migrate } = await boot(lib, options);
  await migrate.close();
  const start = performance.now();
  await query.call(
    client,
    `INSERT INTO ${PG_SCHEMA}.${T} (${COLUMNS}) SELECT ${rowSql(Date.now() - ROWS)} FROM generate_series(0, ${ROWS - 1}) AS i`,
  );
  await query.call(client, `VACUUM ANALYZE ${PG_SCHEMA}.${T}`);
  const fillMs = performance.now() - start;
  const { app, admin } = await boot(lib, options);
  const rows = await measure(admin, caught, async ({ sql, params }) => {
    const result = await query.call(client, `EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
    return result.rows
      .map((row) => row['QUERY PLAN'].trim())
      .filter((line) => /Scan|Sort|Rows Removed|Buffers: shared|Execution/.test(line))
      .slice(0, 8)
      .join('; ');
  });
  await app.close();
  await query.call(client, `DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await client.end();
  pg.Client.prototype.query = query;
  return { backend: 'postgres', fillMs, rows };
}

async function main() {
  const lib = require(DIST_DIR);
  for (const backend of BACKENDS) {
    const result = backend === 'postgres' ? await postgres(lib) : await sqlite(lib);
    console.log(`\n### ${result.backend}: ${ROWS.toLocaleString('en-US')} rows (filled in ${(result.fillMs / 1000).toFixed(0)} s)\n`);
    console.log('| getJobs | found | ms (median) | plan |');
    console.log('|---|---|---|---|');
    for (const row of result.rows)
      console.log(`| ${row.label} | ${row.found} | ${row.ms.toFixed(1)} | ${row.plan.replace(/\|/g, '\\|')} |`);
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error && error.stack ? error.stack : error);
    process.exit(1);
  },
);
