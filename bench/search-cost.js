'use strict';
// The cost of `getJobs(queue, { search })` (issue 29 item 2) on a table of a million jobs, and of the two indexes it
// could have used instead: SQLite FTS5 with the trigram tokenizer, PostgreSQL pg_trgm. Prints a Markdown table.
//   node bench/search-cost.js            (after `npm run build`; PostgreSQL on 127.0.0.1:5432, database `test`)
// Environment: SEARCH_BENCH_ROWS (default 1,000,000), SEARCH_BENCH_RUNS (default 5, median reported),
// SEARCH_BENCH_BACKENDS (default better-sqlite3,postgres).
// The table: 90 % of the rows in queue `big`, 10 % spread over 9 others; 90 % completed, the rest pending or failed;
// data is a small JSON object with an e-mail address (one row in 10,000 holds `needle-<n>@example.com`).
require('reflect-metadata');

const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { DIST_DIR, freshDbFile, removeDb } = require('./lib/common');

const lib = require(DIST_DIR);
const ROWS = Number(process.env.SEARCH_BENCH_ROWS || 1_000_000);
const RUNS = Number(process.env.SEARCH_BENCH_RUNS || 5);
const BACKENDS = (process.env.SEARCH_BENCH_BACKENDS || 'better-sqlite3,postgres').split(',');
const PG_URL = process.env.SEARCH_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const PG_SCHEMA = 'bench_search_cost';
const T = 'nest_queue_jobs';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timed(fn) {
  const times = [];
  let result;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    result = await fn();
    times.push(performance.now() - start);
  }
  return { ms: median(times), result };
}

/** The searches measured, through the public API. */
const CASES = [
  ['the newest job of its queue', 'big', { search: `user${ROWS - 1}@example.com` }],
  ['an old job (id 4243): past the bound', 'big', { search: 'needle-4242@example.com' }],
  ['common text (every row), page of 50', 'big', { search: 'example.com' }],
  ['absent text, queue of 90 % of rows', 'big', { search: 'no-such-text' }],
  ['absent text, failed only', 'big', { search: 'no-such-text', status: 'failed' }],
  ['absent text, queue of 1 % of rows', 'q3', { search: 'no-such-text' }],
  ['absent text with quotes, % and backslash', 'big', { search: `50% "off" \\ it's_` }],
];

async function boot(options) {
  class AppModule {}
  Module({ imports: [lib.QueueModule.forRoot(options)] })(AppModule);
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  return { app, admin: app.get(lib.QueueAdmin) };
}

async function measureApi(admin) {
  const rows = [];
  for (const [label, queue, options] of CASES) {
    const { ms, result } = await timed(() => admin.getJobs(queue, options));
    rows.push({ label, ms, found: result.length });
  }
  return rows;
}

async function sqlite() {
  const Database = require('better-sqlite3');
  const file = freshDbFile('search-cost.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  for (const step of lib.getMigrations('sqlite')) for (const statement of step.sql) db.exec(statement);
  const insert = db.prepare(
    `INSERT INTO ${T} (queue, status, data, priority, run_at, attempts, max_attempts, created_at, started_at, finished_at, updated_at, error, name)
     VALUES (?, ?, ?, 0, ?, 1, 3, ?, ?, ?, ?, ?, ?)`,
  );
  const t0 = Date.now() - ROWS;
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) row(i, t0, (...values) => insert.run(...values));
  })();
  db.exec('ANALYZE');
  const plan = db
    .prepare(
      `EXPLAIN QUERY PLAN SELECT * FROM ${T} WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - 100000 AND +queue = 'q3'
       AND +status = 'failed' AND instr(lower(data), lower('x')) > 0 ORDER BY id DESC LIMIT 50`,
    )
    .all()
    .map((step) => step.detail)
    .join('; ');
  db.close();
  const { app, admin } = await boot({ database: file, driver: 'better-sqlite3' });
  const api = await measureApi(admin);
  await app.close();
  // The index it could have had: an FTS5 trigram table over data (built once; what each insert would pay).
  const fts = new Database(file);
  const start = performance.now();
  fts.exec(`CREATE VIRTUAL TABLE search_fts USING fts5(data, content='${T}', content_rowid='id', tokenize='trigram')`);
  fts.exec(`INSERT INTO search_fts (rowid, data) SELECT id, data FROM ${T}`);
  const buildMs = performance.now() - start;
  const ftsQuery = fts.prepare(`SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT 50`);
  const ftsRare = await timed(() => ftsQuery.all('"needle-4242@example.com"'));
  const ftsCommon = await timed(() => ftsQuery.all('"example.com"'));
  const perInsert = insertCost(fts, t0);
  const sizes = fts.prepare(`SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_fts%'`).get();
  fts.close();
  removeDb(file);
  return {
    backend: 'better-sqlite3',
    plan,
    api,
    index:
      `FTS5 trigram over data: build ${(buildMs / 1000).toFixed(0)} s, ${(sizes.bytes / 1e6).toFixed(0)} MB; ` +
      `rare text ${ftsRare.ms.toFixed(1)} ms, common text (page of 50) ${ftsCommon.ms.toFixed(1)} ms; ` +
      `insert of 10k jobs ${perInsert.without.toFixed(0)} ms without the index, ${perInsert.with.toFixed(0)} ms with it (a trigger per insert)`,
  };
}

/** 10k single-row inserts in one transaction, without and with an FTS trigger keeping the index. */
function insertCost(db, t0) {
  const insert = db.prepare(
    `INSERT INTO ${T} (queue, status, data, priority, run_at, attempts, max_attempts, created_at, started_at, finished_at, updated_at, error, name)
     VALUES (?, ?, ?, 0, ?, 1, 3, ?, ?, ?, ?, ?, ?)`,
  );
  const run = () => {
    const start = performance.now();
    db.transaction(() => {
      for (let i = 0; i < 10_000; i++) row(ROWS + i, t0, (...values) => insert.run(...values));
    })();
    return performance.now() - start;
  };
  const without = run();
  db.exec(`CREATE TRIGGER search_fts_ai AFTER INSERT ON ${T} BEGIN INSERT INTO search_fts (rowid, data) VALUES (new.id, new.data); END`);
  const withIndex = run();
  return { without, with: withIndex };
}

/** Row `i`: queue, status, data, run_at, created_at, started_at, finished_at, updated_at, error, name. */
function row(i, t0, put) {
  const queue = i % 10 === 0 ? `q${1 + (i % 9)}` : 'big';
  const status = i % 10 < 9 ? 'completed' : i % 20 === 9 ? 'failed' : 'pending';
  const email = i % 10_000 === 4242 % 10_000 ? `needle-${i === 4242 ? 4242 : i}@example.com` : `user${i}@example.com`;
  const data = JSON.stringify({ orderId: i, email, note: 'a short note about the order', amount: i % 997 });
  const at = t0 + i;
  const finished = status === 'pending' ? null : at + 5;
  const error = status === 'failed' ? JSON.stringify({ name: 'Error', message: `upstream said 502 for order ${i}` }) : null;
  put(queue, status, data, at, at, status === 'pending' ? null : at + 1, finished, at, error, i % 3 === 0 ? 'invoice' : 'receipt');
}

async function postgres() {
  const { Client } = require('pg');
  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  const { app: bootApp } = await boot({ postgres: { url: PG_URL, schema: PG_SCHEMA } });
  await bootApp.close();
  const t0 = Date.now() - ROWS;
  await client.query(
    `INSERT INTO ${PG_SCHEMA}.${T} (queue, status, data, priority, run_at, attempts, max_attempts, created_at, started_at, finished_at, updated_at, error, name)
     SELECT CASE WHEN i % 10 = 0 THEN 'q' || (1 + i % 9) ELSE 'big' END,
       CASE WHEN i % 10 < 9 THEN 'completed' WHEN i % 20 = 9 THEN 'failed' ELSE 'pending' END,
       json_build_object('orderId', i, 'email', CASE WHEN i = 4242 THEN 'needle-4242@example.com' ELSE 'user' || i || '@example.com' END,
         'note', 'a short note about the order', 'amount', i % 997)::text,
       0, $1::bigint + i, 1, 3, $1::bigint + i,
       CASE WHEN i % 10 < 9 OR i % 20 = 9 THEN $1::bigint + i + 1 END,
       CASE WHEN i % 10 < 9 OR i % 20 = 9 THEN $1::bigint + i + 5 END,
       $1::bigint + i,
       CASE WHEN i % 20 = 9 THEN json_build_object('name', 'Error', 'message', 'upstream said 502 for order ' || i)::text END,
       CASE WHEN i % 3 = 0 THEN 'invoice' ELSE 'receipt' END
     FROM generate_series(0, $2::int - 1) AS i`,
    [t0, ROWS],
  );
  await client.query(`VACUUM ANALYZE ${PG_SCHEMA}.${T}`);
  const planRows = await client.query(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ${PG_SCHEMA}.${T} WHERE id > (SELECT coalesce(max(id), 0) FROM ${PG_SCHEMA}.${T}) - 100000
       AND queue || '' = 'big' AND status = 'failed' AND strpos(lower(data), lower('no-such-text')) > 0 ORDER BY id DESC LIMIT 50`,
  );
  const plan = planRows.rows
    .map((r) => r['QUERY PLAN'].trim())
    .filter((line) => /Scan|Execution|Rows Removed/.test(line))
    .join('; ');
  const { app, admin } = await boot({ postgres: { url: PG_URL, schema: PG_SCHEMA } });
  const api = await measureApi(admin);
  await app.close();
  let index;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
    const start = performance.now();
    await client.query(`CREATE INDEX search_trgm ON ${PG_SCHEMA}.${T} USING gin (lower(data) gin_trgm_ops)`);
    const buildMs = performance.now() - start;
    const size = await client.query(`SELECT pg_relation_size('${PG_SCHEMA}.search_trgm') AS bytes`);
    const q = (text) =>
      client.query(`SELECT id FROM ${PG_SCHEMA}.${T} WHERE lower(data) LIKE '%' || lower($1) || '%' ORDER BY id DESC LIMIT 50`, [text]);
    const rare = await timed(() => q('needle-4242@example.com'));
    const common = await timed(() => q('example.com'));
    index =
      `pg_trgm GIN over lower(data): build ${(buildMs / 1000).toFixed(0)} s, ${(Number(size.rows[0].bytes) / 1e6).toFixed(0)} MB; ` +
      `rare text ${rare.ms.toFixed(1)} ms, common text (page of 50) ${common.ms.toFixed(1)} ms (needs CREATE EXTENSION: a superuser, or a managed server's allow-list)`;
  } catch (error) {
    index = `pg_trgm: ${error.message}`;
  }
  await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await client.end();
  return { backend: 'postgres', plan, api, index };
}

async function main() {
  const results = [];
  if (BACKENDS.includes('better-sqlite3')) results.push(await sqlite());
  if (BACKENDS.includes('postgres')) results.push(await postgres());
  console.log(`\n### Search on ${ROWS.toLocaleString('en')} jobs (median of ${RUNS})\n`);
  console.log(`| search | ${results.map((r) => r.backend).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}`);
  for (let i = 0; i < CASES.length; i++) {
    console.log(`| ${CASES[i][0]} | ${results.map((r) => `${r.api[i].ms.toFixed(0)} ms (${r.api[i].found} found)`).join(' | ')} |`);
  }
  for (const r of results) console.log(`\n- ${r.backend} plan: ${r.plan}\n- ${r.backend} index alternative: ${r.index}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
