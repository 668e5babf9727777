'use strict';
// The cost of one claim statement with job groups (issue 28 item 1): a backlog of BACKLOG due jobs on one queue, in
// 0, 10 or 1,000 groups, and the claim of 10 jobs timed one statement at a time (the claimed jobs completed between
// claims, so the backlog stays put), the plain claim (a queue without groups) timed in turns in the same run:
// ratios are same-run. SQLite (node-sqlite3) and PostgreSQL, from dist/.
//
//   npm run build && BACKLOG=100000 node bench/group-claim-cost.js
const path = require('node:path');
const fs = require('node:fs');
const lib = path.join(__dirname, '..', 'dist');
const { createQueueStorage } = require(path.join(lib, 'runtime/create-queue-storage'));
const { resolveModuleOptions } = require(path.join(lib, 'runtime/resolve-module-options'));

const BACKLOG = Number(process.env.BACKLOG || 100_000);
const CLAIMS = Number(process.env.CLAIMS || 60);
const PG_URL = process.env.GROUPS_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const backends = (process.env.GROUPS_BACKENDS || 'sqlite,postgres').split(',');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1];
};

async function measure(backend, groups) {
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
  const kinds = {
    plain: { queue: 'q', limit: 10 },
    grouped: { queue: 'q', limit: 10, grouped: true, groupConcurrency: 1_000_000 },
  };
  const times = { plain: [], grouped: [] };
  for (let i = 0; i < CLAIMS; i++) {
    for (const kind of ['plain', 'grouped']) {
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

async function main() {
  console.log(
    `| backend | groups | backlog | plain claim ms (median of ${CLAIMS}) | grouped claim ms | grouped ÷ plain (median of pairs) |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const backend of backends) {
    for (const groups of [0, 10, 1000]) {
      const r = await measure(backend, groups);
      console.log(
        `| ${backend} | ${groups.toLocaleString('en-US')} | ${BACKLOG.toLocaleString('en-US')} | ${r.plain.toFixed(2)} | ${r.grouped.toFixed(2)} | ${r.ratio.toFixed(2)}× |`,
      );
    }
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
