'use strict';
// The plain path's cost of flows and of the transactional-enqueue gate (item 1): no-op jobs that
// use neither feature, enqueued with addBulk and processed end to end, on a schema WITH the flows step (its two
// triggers and the children index, as shipped) and on the same schema WITHOUT them (dropped after boot, as before
// the feature). Variants are interleaved run by run, each measurement in a fresh child process; medians of RUNS.
//   node bench/flows-cost.js            (after `npm run build`; PostgreSQL on 127.0.0.1:5432, database `test`)
// Environment: FLOWS_BENCH_RUNS (default 5), FLOWS_BENCH_TOTAL (default 40000 jobs over 4 queues).
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const RUNS = Number(process.env.FLOWS_BENCH_RUNS || 5);
const TOTAL = Number(process.env.FLOWS_BENCH_TOTAL || 40_000);
const QUEUES = ['q0', 'q1', 'q2', 'q3'];
const PG_URL = process.env.FLOWS_BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const PG_SCHEMA = 'bench_flows_cost';
const T = 'nest_queue_jobs';
const DROP_FLOWS = [
  `DROP TRIGGER IF EXISTS ${T}_child_finished`,
  `DROP TRIGGER IF EXISTS ${T}_child_removed`,
  `DROP INDEX IF EXISTS ${T}_children`,
];

async function measure({ backend, variant, tag }) {
  const { startLibraryApp } = require('./lib/library-app');
  const { freshDbFile, removeDb } = require('./lib/common');
  let options;
  let file;
  let dropFlows;
  if (backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
    options = { postgres: { url: PG_URL, schema: PG_SCHEMA } };
    dropFlows = async () => {
      await client.query(`DROP TRIGGER IF EXISTS ${T}_child_finished ON ${PG_SCHEMA}.${T}`);
      await client.query(`DROP TRIGGER IF EXISTS ${T}_child_removed ON ${PG_SCHEMA}.${T}`);
      await client.query(`DROP INDEX IF EXISTS ${PG_SCHEMA}.${T}_children`);
    };
    measure.done = async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${PG_SCHEMA} CASCADE`);
      await client.end();
    };
  } else {
    file = freshDbFile(`flows-cost-${tag}.sqlite`);
    options = { database: file, driver: backend };
    dropFlows = async () => {
      const Database = require('better-sqlite3');
      const db = new Database(file);
      for (const statement of DROP_FLOWS) db.exec(statement);
      db.close();
    };
    measure.done = async () => removeDb(file);
  }
  const producer = await startLibraryApp({ options: { ...options, processing: false } });
  if (variant === 'without') await dropFlows();
  let t = performance.now();
  const perQueue = TOTAL / QUEUES.length;
  for (const queue of QUEUES) {
    for (let done = 0; done < perQueue; done += 500) {
      await producer.producer.addBulk(
        queue,
        Array.from({ length: Math.min(500, perQueue - done) }, (_, i) => ({ data: { i: done + i } })),
      );
    }
  }
  const enqueueRate = TOTAL / ((performance.now() - t) / 1000);
  await producer.close();
  let handled = 0;
  t = performance.now();
  // CPU time of this process (every thread: node-sqlite3 runs SQLite on the libuv pool) per job: steadier than
  // wall time on a machine shared with other work. On PostgreSQL the server's share is not in it.
  const cpuBefore = process.cpuUsage();
  const app = await startLibraryApp({ options, queues: QUEUES, concurrency: 50, handler: () => void handled++ });
  while (handled < TOTAL) await new Promise((resolve) => setTimeout(resolve, 5));
  while ((await app.admin.getCounts()).completed < TOTAL) await new Promise((resolve) => setTimeout(resolve, 2));
  const processRate = TOTAL / ((performance.now() - t) / 1000);
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMicrosPerJob = (cpu.user + cpu.system) / TOTAL;
  await app.close();
  await measure.done();
  return { enqueueRate, processRate, cpuMicrosPerJob };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function main() {
  const backends = (process.env.FLOWS_BENCH_BACKENDS || 'sqlite3,better-sqlite3,postgres').split(',');
  const results = {};
  for (let run = 0; run < RUNS; run++) {
    for (const backend of backends) {
      // Alternate which variant goes first, so a warming or cooling machine favours neither.
      const order = run % 2 ? ['without', 'with'] : ['with', 'without'];
      for (const variant of order) {
        const args = JSON.stringify({ backend, variant, tag: `${backend}-${variant}-${run}` });
        const child = spawnSync(process.execPath, [path.join(__dirname, 'flows-cost.js'), args], {
          encoding: 'utf8',
          cwd: path.join(__dirname, '..'),
        });
        if (child.status !== 0) throw new Error(`${backend}/${variant} failed: ${child.stderr}`);
        const result = JSON.parse(child.stdout.trim().split('\n').pop());
        (results[`${backend}/${variant}`] ??= []).push(result);
        console.error(
          `${backend} ${variant} run ${run + 1}: process ${Math.round(result.processRate)} jobs/s, addBulk ${Math.round(result.enqueueRate)}/s`,
        );
      }
    }
  }
  console.log(
    `| backend | addBulk without / with flows (jobs/s) | process without / with flows (jobs/s) | change | CPU µs/job processing, without / with | change |`,
  );
  console.log(`|---|---|---|---|---|---|`);
  for (const backend of backends) {
    const without = results[`${backend}/without`];
    const withFlows = results[`${backend}/with`];
    const m = (list, key) => median(list.map((r) => r[key]));
    const change = ((m(withFlows, 'processRate') / m(without, 'processRate') - 1) * 100).toFixed(1);
    const cpuChange = ((m(withFlows, 'cpuMicrosPerJob') / m(without, 'cpuMicrosPerJob') - 1) * 100).toFixed(1);
    console.log(
      `| ${backend} | ${Math.round(m(without, 'enqueueRate'))} / ${Math.round(m(withFlows, 'enqueueRate'))} | ` +
        `${Math.round(m(without, 'processRate'))} / ${Math.round(m(withFlows, 'processRate'))} | ${change} % | ` +
        `${m(without, 'cpuMicrosPerJob').toFixed(1)} / ${m(withFlows, 'cpuMicrosPerJob').toFixed(1)} | ${cpuChange} % |`,
    );
  }
}

if (process.argv[2]) {
  measure(JSON.parse(process.argv[2])).then(
    (result) => {
      console.log(JSON.stringify(result));
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  main();
}
