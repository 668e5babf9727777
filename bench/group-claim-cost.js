'use strict';
// The cost of one claim statement with job groups: a backlog of BACKLOG due jobs on one queue, in
// 0, 10 or 1,000 groups, and the claim of 10 jobs timed one statement at a time (the claimed jobs completed between
// claims, so the backlog stays put), the plain claim (a queue without groups) timed in turns in the same run:
// ratios are same-run. SQLite (node-sqlite3) and PostgreSQL, from dist/ (or BENCH_DIST_DIR: another build, for an
// A/B of two builds; GROUPS_KINDS=plain for a build before groups, whose claim knows no grouped request).
// GROUPS_STATS=fresh,analyzed measures each table as filled (no statistics: what a queue sees until autovacuum
// analyzes it) and after an ANALYZE of the jobs table. GROUPS_EXPLAIN=1 prints, on PostgreSQL, the plan of one
// grouped claim of each table (EXPLAIN ANALYZE inside a transaction that is rolled back).
//
//   npm run build && BACKLOG=100000 node bench/group-claim-cost.js
//   BENCH_DIST_DIR=bench/.data/main-dist GROUPS_BACKENDS=postgres GROUPS_STATS=fresh,analyzed node bench/group-claim-cost.js
const path = require('node:path');
const fs = require('node:fs');
const lib = path.resolve(process.env.BENCH_DIST_DIR || path.join(__dirname, '..', 'dist'));
const { createQueueStorage } = require(path.join(lib, 'runtime/create-queue-storage'));
const { resolveModuleOptions } = require(path.join(lib, 'runtime/resolve-module-options'));

const BACKLOG = Number(process.env.BACKLOG || 100_000);
const CLAIMS = Number(process.env.CLAIMS || 60);
const PG_URL = process.env.GROUPS_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const backends = (process.env.GROUPS_BACKENDS || 'sqlite,postgres').split(',');
const counts = (process.env.GROUPS_COUNTS || '0,10,1000').split(',').map(Number);
const statsModes = (process.env.GROUPS_STATS || 'fresh').split(',');
const kindNames = (process.env.GROUPS_KINDS || 'plain,grouped').split(',');
const EXPLAIN = process.env.GROUPS_EXPLAIN === '1';

/** The last grouped claim the library sent to PostgreSQL (text and values), for GROUPS_EXPLAIN. */
let lastGroupedClaim;
if (EXPLAIN) {
  const { Client } = require(require.resolve('pg', { paths: [lib] }));
  const query = Client.prototype.query;
  Client.prototype.query = function (config, values, callback) {
    const text = typeof config === 'string' ? config : config?.text;
    if (typeof text === 'string' && text.includes('walk_after')) {
      lastGroupedClaim = { text, values: Array.isArray(values) ? values : config.values };
    }
    return query.call(this, config, values, callback);
  };
}

/** EXPLAIN ANALYZE of the last grouped claim, rolled back: the plan PostgreSQL chose for this table. */
async function explainLastClaim(label) {
  if (!lastGroupedClaim) return;
  const { Client } = require('pg');
  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query('BEGIN');
    const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${lastGroupedClaim.text}`, lastGroupedClaim.values);
    process.stderr.write(`\n--- plan, ${label}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}\n`);
  } finally {
    await client.query('ROLLBACK');
    await client.end();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
};

async function measure(backend, groups, stats) {
  const dir = path.join(__dirname, '.data');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `claim-cost-${process.pid}-${groups}.sqlite`);
  const schema = `bench_claim_cost_${process.pid}_${groups}`;
  const options = backend === 'postgres' ? { postgres: { url: PG_URL, schema } } : { database: file };
  const storage = createQueueStorage(resolveModuleOptions(options));
  await storage.initialize();
  const now = Date.now() - 1000;
  for (let start = 0; start < BACKLOG; start += 5000) {
    const jobs = Array.from({ length: Math.min(5000, BACKLOG - start) }, (_, i) => ({
      data: '{}',
      priority: 0,
      runAt: now,
      maxAttempts: 1,
      backoff: null,
      timeout: null,
      key: null,
      group: groups > 0 ? `g${(start + i) % groups}` : null,
    }));
    await storage.enqueue('q', jobs, now);
  }
  if (stats === 'analyzed') await analyze(backend, file, schema);
  const kinds = {
    plain: { queue: 'q', limit: 10 },
    grouped: { queue: 'q', limit: 10, grouped: true, groupConcurrency: 1_000_000 },
  };
  const times = { plain: [], grouped: [] };
  for (let i = 0; i < CLAIMS; i++) {
    for (const kind of kindNames) {
      const t = process.hrtime.bigint();
      const claimed = await storage.claim([kinds[kind]], 'w', Date.now(), 60_000);
      times[kind].push(Number(process.hrtime.bigint() - t) / 1e6);
      await storage.completeMany(
        claimed.map((job) => ({ ref: { id: job.id, attempt: job.attempts }, result: null })),
        'w',
        Date.now(),
      );
    }
  }
  if (EXPLAIN && backend === 'postgres') await explainLastClaim(`${groups} groups, ${stats}`);
  lastGroupedClaim = undefined;
  await storage.close();
  if (backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
  const ratios = times.grouped.map((t, i) => t / times.plain[i]);
  return { plain: median(times.plain), grouped: median(times.grouped), ratio: median(ratios) };
}

/** ANALYZE of the filled table, on a connection of its own (what autovacuum or an operator would do). */
async function analyze(backend, file, schema) {
  if (backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`ANALYZE "${schema}".nest_queue_jobs`);
    await client.end();
  } else {
    const Database = require('better-sqlite3');
    const db = new Database(file);
    db.exec('ANALYZE');
    db.close();
  }
}

async function main() {
  console.log(
    `| backend | statistics | groups | backlog | plain claim ms (median of ${CLAIMS}) | grouped claim ms | grouped ÷ plain (median of pairs) |`,
  );
  console.log('|---|---|---|---|---|---|---|');
  const fixed = (value) => (Number.isFinite(value) ? value.toFixed(2) : '');
  for (const backend of backends) {
    for (const stats of statsModes) {
      for (const groups of counts) {
        const r = await measure(backend, groups, stats);
        const ratio = Number.isFinite(r.ratio) ? `${r.ratio.toFixed(2)}×` : '';
        console.log(
          `| ${backend} | ${stats} | ${groups.toLocaleString('en-US')} | ${BACKLOG.toLocaleString('en-US')} | ${fixed(r.plain)} | ${fixed(r.grouped)} | ${ratio} |`,
        );
      }
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
