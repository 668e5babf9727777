'use strict';
// The cost of `getJobs(queue, { search })` on a table of a million jobs, and of the two indexes it
// could have used instead: SQLite FTS5 with the trigram tokenizer, PostgreSQL pg_trgm; and on the same table the
// other inspection reads: `explain(id)`, `exportPrometheusMetrics()` and `getFailureGroups(queue)`, each interleaved
// round by round with the plainer read it is compared with. Prints Markdown tables.
//   node bench/search-cost.js            (after `npm run build`; PostgreSQL on 127.0.0.1:5432, database `test`)
// Environment: SEARCH_BENCH_ROWS (default 1,000,000), SEARCH_BENCH_RUNS (default 5, median reported),
// SEARCH_BENCH_BACKENDS (default better-sqlite3,postgres), SEARCH_BENCH_PARTS (default search,admin,indexes: the
// searches, the admin reads, the index alternatives; `SEARCH_BENCH_PARTS=admin` skips the FTS5 and pg_trgm builds,
// which take minutes).
// The table: 90 % of the rows in queue `big`, 10 % spread over 9 others; 90 % completed, the rest pending or failed;
// data is a small JSON object with an e-mail address (one row in 10,000 holds `needle-<n>@example.com`).
require('reflect-metadata');

const os = require('node:os');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { DIST_DIR, freshDbFile, removeDb } = require('./lib/common');

const lib = require(DIST_DIR);
const ROWS = Number(process.env.SEARCH_BENCH_ROWS || 1_000_000);
const RUNS = Number(process.env.SEARCH_BENCH_RUNS || 5);
const BACKENDS = (process.env.SEARCH_BENCH_BACKENDS || 'better-sqlite3,postgres').split(',');
const PARTS = (process.env.SEARCH_BENCH_PARTS || 'search,admin,indexes').split(',');
/** Rows of `big` the admin part marks running (a live lease) for its second round of explain. */
const RUNNING_ROWS = 1000;
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

/** Fills `file` (a fresh better-sqlite3 file) with the table: the library's schema, ROWS jobs. Returns t0. */
function buildSqlite(Database, file) {
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
  db.close();
  return t0;
}

async function sqlite() {
  const Database = require('better-sqlite3');
  const file = freshDbFile('search-cost.sqlite');
  const buildStart = performance.now();
  const t0 = buildSqlite(Database, file);
  const buildMs = performance.now() - buildStart;
  const db = new Database(file);
  const plan = db
    .prepare(
      `EXPLAIN QUERY PLAN SELECT * FROM ${T} WHERE id > (SELECT coalesce(max(id), 0) FROM ${T}) - 100000 AND +queue = 'q3'
       AND +status = 'failed' AND instr(lower(data), lower('x')) > 0 ORDER BY id DESC LIMIT 50`,
    )
    .all()
    .map((step) => step.detail)
    .join('; ');
  const ids = await fixtureIds((sql) => db.prepare(sql).get());
  const { app, admin } = await boot({ database: file, driver: 'better-sqlite3' });
  const api = PARTS.includes('search') ? await measureApi(admin) : [];
  const adminCosts = PARTS.includes('admin')
    ? await measureAdmin(admin, ids, async (sql, params) => db.prepare(sql).run(...params))
    : undefined;
  await app.close();
  db.close();
  let index;
  if (PARTS.includes('indexes')) {
    // The index it could have had: an FTS5 trigram table over data (built once; what each insert would pay).
    const fts = new Database(file);
    const start = performance.now();
    fts.exec(`CREATE VIRTUAL TABLE search_fts USING fts5(data, content='${T}', content_rowid='id', tokenize='trigram')`);
    fts.exec(`INSERT INTO search_fts (rowid, data) SELECT id, data FROM ${T}`);
    const ftsBuildMs = performance.now() - start;
    const ftsQuery = fts.prepare(`SELECT rowid FROM search_fts WHERE search_fts MATCH ? ORDER BY rowid DESC LIMIT 50`);
    const ftsRare = await timed(() => ftsQuery.all('"needle-4242@example.com"'));
    const ftsCommon = await timed(() => ftsQuery.all('"example.com"'));
    const perInsert = insertCost(fts, t0);
    const sizes = fts.prepare(`SELECT sum(pgsize) AS bytes FROM dbstat WHERE name LIKE 'search_fts%'`).get();
    fts.close();
    index =
      `FTS5 trigram over data: build ${(ftsBuildMs / 1000).toFixed(0)} s, ${(sizes.bytes / 1e6).toFixed(0)} MB; ` +
      `rare text ${ftsRare.ms.toFixed(1)} ms, common text (page of 50) ${ftsCommon.ms.toFixed(1)} ms; ` +
      `insert of 10k jobs ${perInsert.without.toFixed(0)} ms without the index, ${perInsert.with.toFixed(0)} ms with it (a trigger per insert)`;
  }
  removeDb(file);
  return { backend: 'better-sqlite3', buildMs, plan, api, admin: adminCosts, index };
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

/** Fills schema PG_SCHEMA (dropped first) with the table: the library's schema, ROWS jobs, then VACUUM ANALYZE. */
async function buildPostgres(client) {
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
  return t0;
}

async function postgres() {
  const { Client } = require('pg');
  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  const buildStart = performance.now();
  await buildPostgres(client);
  const buildMs = performance.now() - buildStart;
  const planRows = await client.query(
    `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM ${PG_SCHEMA}.${T} WHERE id > (SELECT coalesce(max(id), 0) FROM ${PG_SCHEMA}.${T}) - 100000
       AND queue || '' = 'big' AND status = 'failed' AND strpos(lower(data), lower('no-such-text')) > 0 ORDER BY id DESC LIMIT 50`,
  );
  const plan = planRows.rows
    .map((r) => r['QUERY PLAN'].trim())
    .filter((line) => /Scan|Execution|Rows Removed/.test(line))
    .join('; ');
  const ids = await fixtureIds(async (sql) => (await client.query(sql.replaceAll(`FROM ${T}`, `FROM ${PG_SCHEMA}.${T}`))).rows[0]);
  const { app, admin } = await boot({ postgres: { url: PG_URL, schema: PG_SCHEMA } });
  const api = PARTS.includes('search') ? await measureApi(admin) : [];
  const adminCosts = PARTS.includes('admin')
    ? await measureAdmin(admin, ids, async (sql, params) => {
        let n = 0;
        await client.query(
          sql.replaceAll(` ${T}`, ` ${PG_SCHEMA}.${T}`).replace(/\?/g, () => `$${++n}`),
          params,
        );
        await client.query(`ANALYZE ${PG_SCHEMA}.${T}`);
      })
    : undefined;
  await app.close();
  let index;
  if (PARTS.includes('indexes')) {
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      const start = performance.now();
      await client.query(`CREATE INDEX search_trgm ON ${PG_SCHEMA}.${T} USING gin (lower(data) gin_trgm_ops)`);
      const trgmBuildMs = performance.now() - start;
      const size = await client.query(`SELECT pg_relation_size('${PG_SCHEMA}.search_trgm') AS bytes`);
      const q = (text) =>
        client.query(`SELECT id FROM ${PG_SCHEMA}.${T} WHERE lower(data) LIKE '%' || lower($1) || '%' ORDER BY id DESC LIMIT 50`, [text]);
      const rare = await timed(() => q('needle-4242@example.com'));
      const common = await timed(() => q('example.com'));
      index =
        `pg_trgm GIN over lower(data): build ${(trgmBuildMs / 1000).toFixed(0)} s, ${(Number(size.rows[0].bytes) / 1e6).toFixed(0)} MB; ` +
        `rare text ${rare.ms.toFixed(1)} ms, common text (page of 50) ${common.ms.toFixed(1)} ms (needs CREATE EXTENSION: a superuser, or a managed server's allow-list)`;
    } catch (error) {
      index = `pg_trgm: ${error.message}`;
    }
  }
  await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
  await client.end();
  return { backend: 'postgres', buildMs, plan, api, admin: adminCosts, index };
}

/**
 * The jobs the admin part reads, found in the table as built (`get(sql)` returns a row): the newest pending job of
 * `big`, an old completed one and the newest failed one.
 */
async function fixtureIds(get) {
  const one = async (where) => String((await get(`SELECT max(id) AS id FROM ${T} WHERE ${where}`)).id);
  return {
    pending: await one(`queue = 'big' AND status = 'pending'`),
    completed: await one(`id <= 4243 AND status = 'completed'`),
    failed: await one(`queue = 'big' AND status = 'failed'`),
  };
}

/**
 * Runs `ops` RUNS times, one of each in turn per round (a noisy spell of the machine hits all of them), and returns
 * per op the median wall and CPU milliseconds (CPU: this process; all of a statement's on better-sqlite3, the
 * client's share on PostgreSQL), what its last call returned (`describe`), and per round the wall times by name.
 */
async function interleaved(ops) {
  const wall = ops.map(() => []);
  const cpu = ops.map(() => []);
  const last = [];
  const rounds = [];
  for (let round = 0; round < RUNS; round++) {
    const times = {};
    for (let k = 0; k < ops.length; k++) {
      const cpu0 = process.cpuUsage();
      const start = performance.now();
      last[k] = await ops[k].fn();
      const ms = performance.now() - start;
      const used = process.cpuUsage(cpu0);
      wall[k].push(ms);
      cpu[k].push((used.user + used.system) / 1000);
      times[ops[k].name] = ms;
    }
    rounds.push(times);
  }
  return {
    rows: ops.map((op, k) => ({ label: op.label, name: op.name, ms: median(wall[k]), cpuMs: median(cpu[k]), got: op.describe(last[k]) })),
    rounds,
  };
}

/** Median over the rounds of `numerator ÷ sum(denominators)`: a same-run ratio. */
function ratioOf(rounds, numerator, denominators) {
  return median(rounds.map((times) => times[numerator] / denominators.reduce((sum, name) => sum + times[name], 0)));
}

/**
 * `explain(id)`, `exportPrometheusMetrics()` and `getFailureGroups(queue)`, each with the read it is compared with,
 * interleaved; then RUNNING_ROWS pending rows of `big` are marked running with a live lease (`write(sql, params)`),
 * and explain and listQueues are taken again: explain counts the queue's live running rows.
 */
async function measureAdmin(admin, ids, write) {
  const started = { at: new Date().toISOString(), load: os.loadavg() };
  const reason = (why) => why.reason;
  const length = (list) => `${list.length} rows`;
  const lines = (text) => `${text.split('\n').length} lines`;
  const groups = (list) => `${list.length} groups, the largest of ${Math.max(0, ...list.map((group) => group.count))}`;
  const ops = [
    { name: 'getJob', label: 'getJob(id), a pending job (for comparison)', fn: () => admin.getJob(ids.pending), describe: () => 'found' },
    { name: 'explainPending', label: 'explain(id), a pending job of `big`', fn: () => admin.explain(ids.pending), describe: reason },
    { name: 'explainCompleted', label: 'explain(id), an old completed job', fn: () => admin.explain(ids.completed), describe: reason },
    { name: 'explainFailed', label: 'explain(id), a failed job', fn: () => admin.explain(ids.failed), describe: reason },
    {
      name: 'listQueues',
      label: 'listQueues() (for comparison)',
      fn: () => admin.listQueues(),
      describe: (list) => `${list.length} queues`,
    },
    {
      name: 'getMetrics',
      label: 'getMetrics({ windowMinutes: 1440 }) (for comparison)',
      fn: () => admin.getMetrics({ windowMinutes: 1440 }),
      describe: (snapshot) => `${Object.keys(snapshot.queues).length} queues${snapshot.sampled ? ', sampled' : ''}`,
    },
    { name: 'prometheus', label: 'exportPrometheusMetrics()', fn: () => admin.exportPrometheusMetrics(), describe: lines },
    {
      name: 'prometheusDay',
      label: 'exportPrometheusMetrics({ windowMinutes: 1440 })',
      fn: () => admin.exportPrometheusMetrics({ windowMinutes: 1440 }),
      describe: lines,
    },
    {
      name: 'failedPage',
      label: "getJobs('big', { status: 'failed' }) (for comparison)",
      fn: () => admin.getJobs('big', { status: 'failed' }),
      describe: length,
    },
    { name: 'failureGroups', label: "getFailureGroups('big')", fn: () => admin.getFailureGroups('big'), describe: groups },
    {
      name: 'failureGroupsMax',
      label: "getFailureGroups('big', { limit: 100 })",
      fn: () => admin.getFailureGroups('big', { limit: 100 }),
      describe: groups,
    },
    { name: 'failureGroupsNone', label: "getFailureGroups('q3') (no failures)", fn: () => admin.getFailureGroups('q3'), describe: groups },
  ];
  const first = await interleaved(ops);
  await write(
    `UPDATE ${T} SET status = 'running', locked_by = 'bench', lease_until = ?, started_at = ?, attempts = 1
     WHERE id IN (SELECT id FROM ${T} WHERE queue = 'big' AND status = 'pending' AND id < ? ORDER BY id LIMIT ${RUNNING_ROWS})`,
    [Date.now() + 86_400_000, Date.now(), Number(ids.pending)],
  );
  const running = await interleaved([
    { name: 'getJob', label: 'getJob(id), a pending job (for comparison)', fn: () => admin.getJob(ids.pending), describe: () => 'found' },
    {
      name: 'explainPending',
      label: `explain(id), a pending job of \`big\`, ${RUNNING_ROWS.toLocaleString('en')} running jobs in its queue`,
      fn: () => admin.explain(ids.pending),
      describe: reason,
    },
    {
      name: 'listQueues',
      label: `listQueues(), ${RUNNING_ROWS.toLocaleString('en')} running`,
      fn: () => admin.listQueues(),
      describe: (list) => `${list.length} queues`,
    },
  ]);
  return {
    started,
    ended: { at: new Date().toISOString(), load: os.loadavg() },
    rows: [...first.rows, ...running.rows.filter((op) => op.name !== 'getJob')],
    ratios: [
      ['explain(pending) ÷ getJob(pending)', ratioOf(first.rounds, 'explainPending', ['getJob'])],
      [`explain(pending) ÷ getJob(pending), ${RUNNING_ROWS} running`, ratioOf(running.rounds, 'explainPending', ['getJob'])],
      ['exportPrometheusMetrics() ÷ (listQueues() + getMetrics(1440))', ratioOf(first.rounds, 'prometheus', ['listQueues', 'getMetrics'])],
      [
        'exportPrometheusMetrics(1440) ÷ (listQueues() + getMetrics(1440))',
        ratioOf(first.rounds, 'prometheusDay', ['listQueues', 'getMetrics']),
      ],
      ["getFailureGroups('big') ÷ getJobs('big', failed)", ratioOf(first.rounds, 'failureGroups', ['failedPage'])],
    ],
  };
}

async function main() {
  const results = [];
  if (BACKENDS.includes('better-sqlite3')) results.push(await sqlite());
  if (BACKENDS.includes('postgres')) results.push(await postgres());
  const load = (l) => l.map((x) => x.toFixed(2)).join(', ');
  for (const r of results)
    console.log(`\n- ${r.backend}: the table of ${ROWS.toLocaleString('en')} rows built in ${(r.buildMs / 1000).toFixed(0)} s`);
  if (PARTS.includes('search')) {
    console.log(`\n### Search on ${ROWS.toLocaleString('en')} jobs (median of ${RUNS})\n`);
    console.log(`| search | ${results.map((r) => r.backend).join(' | ')} |`);
    console.log(`|---|${results.map(() => '---|').join('')}`);
    for (let i = 0; i < CASES.length; i++) {
      console.log(`| ${CASES[i][0]} | ${results.map((r) => `${r.api[i].ms.toFixed(0)} ms (${r.api[i].found} found)`).join(' | ')} |`);
    }
    for (const r of results) console.log(`\n- ${r.backend} plan: ${r.plan}`);
  }
  if (PARTS.includes('admin')) {
    console.log(
      `\n### explain, Prometheus and failure groups on ${ROWS.toLocaleString('en')} jobs (median of ${RUNS} interleaved rounds)\n`,
    );
    console.log(`| read | ${results.map((r) => `${r.backend} wall (CPU of this process)`).join(' | ')} | returned |`);
    const returned = (i) => [...new Set(results.map((r) => r.admin.rows[i].got))].join(' / ');
    console.log(`|---|${results.map(() => '---|').join('')}---|`);
    const rows = results[0].admin.rows;
    for (let i = 0; i < rows.length; i++) {
      const cells = results.map((r) => `${r.admin.rows[i].ms.toFixed(1)} ms (${r.admin.rows[i].cpuMs.toFixed(1)})`);
      console.log(`| ${rows[i].label} | ${cells.join(' | ')} | ${returned(i)} |`);
    }
    console.log(`\n| same-run ratio (median of per-round ratios) | ${results.map((r) => r.backend).join(' | ')} |`);
    console.log(`|---|${results.map(() => '---|').join('')}`);
    for (let i = 0; i < results[0].admin.ratios.length; i++) {
      console.log(`| ${results[0].admin.ratios[i][0]} | ${results.map((r) => `${r.admin.ratios[i][1].toFixed(2)}×`).join(' | ')} |`);
    }
    for (const r of results) {
      const { started, ended } = r.admin;
      console.log(`\n- ${r.backend}: ${started.at} to ${ended.at}, load average ${load(started.load)} then ${load(ended.load)}`);
    }
  }
  if (PARTS.includes('indexes')) for (const r of results) console.log(`\n- ${r.backend} index alternative: ${r.index}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
