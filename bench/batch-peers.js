'use strict';
// Batch handlers on PostgreSQL against the peers' own batch modes, on the same work: 20,000 no-op items, 100 per
// call. The library's batch handler (`batch: { size: 100 }`) and its single-job handler (concurrency 100), each item
// a job; pg-boss 10's `work({ batchSize: 100 })` (each item a job, the handler gets an array; after a full batch it
// calls notifyWorker, pg-boss's "skip the polling interval once", as the throughput scenario does); graphile-worker
// 0.17 with single jobs (concurrency 100, its local queue and batched completion on, as the PostgreSQL scenario tunes
// it) and with its batch jobs (each job's payload an array of 100 items, the task returning one promise per item,
// graphile-worker's partial-success form: 200 jobs in all).
//
//   npm run build && flock /work/test.lock node bench/batch-peers.js
//   PEERS_RUNS=5 PEERS_TOTAL=20000 node bench/batch-peers.js
//
// Each measurement runs in a fresh child process, the systems interleaved run by run; items are added before the
// clock (each system's bulk call), and the rate runs from the first item handled to the last one finished in the
// database (the library: the last job's end, as bench/batch-handlers.js measures it; pg-boss: every job completed in
// its table; graphile-worker: its jobs table empty). The library's children are bench/batch-handlers.js's own.
// Writes bench/.data/batch-peers.json and prints a Markdown table.
const fs = require('node:fs');
const path = require('node:path');
const { forkSelf, median, waitFor } = require('./lib/common');
const { PG_URL, dropSchemas, ensureBenchDatabase, withClient, scalar } = require('./lib/postgres');

const BENCH_DIR = __dirname;
const DATA_DIR = path.join(BENCH_DIR, '.data');
const SIZE = 100;
const SYSTEMS = ['library-single', 'library-batch', 'pgboss-batch', 'graphile-single', 'graphile-batch'];
const PGBOSS_SCHEMA = 'bench_peers_pgboss';
const GRAPHILE_SCHEMA = 'bench_peers_graphile';

async function child(args) {
  if (args.system === 'pgboss-batch') return pgbossBatch(args.total);
  return graphile(args.total, args.system === 'graphile-batch');
}

async function pgbossBatch(total) {
  const PgBoss = require('pg-boss');
  await dropSchemas([PGBOSS_SCHEMA]);
  const boss = new PgBoss({ connectionString: PG_URL, schema: PGBOSS_SCHEMA });
  boss.on('error', (error) => process.stderr.write(`pg-boss: ${error.message}\n`));
  await boss.start();
  await boss.createQueue('work');
  for (let done = 0; done < total; done += 1000) {
    await boss.insert(Array.from({ length: Math.min(1000, total - done) }, (_, i) => ({ name: 'work', data: { n: done + i } })));
  }
  let handled = 0;
  let first = 0;
  let id;
  id = await boss.work('work', { batchSize: SIZE, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    if (handled === 0) first = performance.now();
    handled += jobs.length;
    if (jobs.length === SIZE && id) boss.notifyWorker(id);
  });
  await waitFor(() => handled >= total, { what: `${total} handled`, timeoutMs: 300_000 });
  // work() completes a batch after its handler: the clock stops once every job is completed in the table.
  const countCompleted = `SELECT count(*) FROM "${PGBOSS_SCHEMA}".job WHERE state = 'completed'`;
  await withClient(PG_URL, (client) => waitFor(async () => (await scalar(client, countCompleted)) >= total, { what: 'all completed' }));
  const last = performance.now();
  await boss.stop({ graceful: true, wait: true });
  await dropSchemas([PGBOSS_SCHEMA]);
  return { rate: total / ((last - first) / 1000) };
}

async function graphile(total, batchJobs) {
  const { run, makeWorkerUtils, Logger } = require('graphile-worker');
  await dropSchemas([GRAPHILE_SCHEMA]);
  const logger = new Logger(() => (level, message) => {
    if (level === 'error') process.stderr.write(`graphile-worker: ${message}\n`);
  });
  const shared = { connectionString: PG_URL, schema: GRAPHILE_SCHEMA, logger };
  const utils = await makeWorkerUtils(shared);
  await utils.migrate();
  // A batch job holds SIZE items in its payload; a single job holds one.
  const perJob = batchJobs ? SIZE : 1;
  const jobs = Array.from({ length: total / perJob }, (_, j) => ({
    identifier: 'work',
    payload: batchJobs ? Array.from({ length: SIZE }, (_, i) => ({ n: j * SIZE + i })) : { n: j },
  }));
  for (let done = 0; done < jobs.length; done += 1000) await utils.addJobs(jobs.slice(done, done + 1000));
  await utils.release();
  let handled = 0;
  let first = 0;
  const note = (items) => {
    if (handled === 0) first = performance.now();
    handled += items;
  };
  const task = batchJobs
    ? async (payload) => {
        note(payload.length);
        return payload.map(() => Promise.resolve());
      }
    : async () => note(1);
  // Concurrency in items: 100 single jobs at once, or one batch job of 100 (and one more locked ahead).
  const concurrency = batchJobs ? 2 : SIZE;
  const runner = await run({
    ...shared,
    concurrency,
    maxPoolSize: 10,
    noHandleSignals: true,
    taskList: { work: task },
    preset: { worker: { localQueue: { size: concurrency }, completeJobBatchDelay: 0 } },
  });
  await waitFor(() => handled >= total, { what: `${total} handled`, timeoutMs: 300_000 });
  const countLeft = `SELECT count(*) FROM "${GRAPHILE_SCHEMA}"._private_jobs`;
  await withClient(PG_URL, (client) => waitFor(async () => (await scalar(client, countLeft)) === 0, { what: 'all completed' }));
  const last = performance.now();
  await runner.stop();
  await dropSchemas([GRAPHILE_SCHEMA]);
  return { rate: total / ((last - first) / 1000) };
}

/** One measurement in a fresh process: the library's through bench/batch-handlers.js, the peers' through this file. */
function measure(system, total, dist) {
  if (system.startsWith('library-')) {
    const mode = system === 'library-batch' ? 'batch' : 'single';
    return forkSelf(path.join(BENCH_DIR, 'batch-handlers.js'), { backend: 'postgres', total, dist, work: 'noop', mode });
  }
  return forkSelf(path.join(BENCH_DIR, 'batch-peers.js'), { system, total });
}

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  await ensureBenchDatabase();
  const runs = Number(process.env.PEERS_RUNS || 3);
  const total = Number(process.env.PEERS_TOTAL || 20_000);
  if (total % SIZE !== 0) throw new Error(`PEERS_TOTAL must be a multiple of ${SIZE}`);
  const dist = path.resolve(process.env.BENCH_DIST_DIR || path.join(BENCH_DIR, '..', 'dist'));
  const results = Object.fromEntries(SYSTEMS.map((system) => [system, []]));
  for (let rep = 0; rep < runs; rep++) {
    for (const system of SYSTEMS) {
      try {
        const { rate } = await measure(system, total, dist);
        results[system].push(rate);
        console.log(`${system} run ${rep + 1}/${runs}: ${Math.round(rate)} items/s`);
      } catch (error) {
        results[system].push(null);
        console.log(`${system} run ${rep + 1}/${runs}: failed (${error.message})`);
      }
    }
  }
  fs.writeFileSync(path.join(DATA_DIR, 'batch-peers.json'), JSON.stringify({ runs, total, size: SIZE, results }, null, 2));
  const lines = ['| system | items/s (median) | range | / library batch, same-run ratios | median ratio |', '|---|---|---|---|---|'];
  for (const system of SYSTEMS) {
    const rates = results[system].filter((rate) => rate !== null);
    if (rates.length === 0) {
      lines.push(`| ${system} | failed | | | |`);
      continue;
    }
    const ratios = results[system]
      .map((rate, i) => (rate !== null && results['library-batch'][i] ? rate / results['library-batch'][i] : null))
      .filter((ratio) => ratio !== null);
    lines.push(
      `| ${system} | ${Math.round(median(rates))} | ${Math.round(Math.min(...rates))}–${Math.round(Math.max(...rates))} | ` +
        `${ratios.map((r) => r.toFixed(2)).join(', ')} | ${ratios.length ? median(ratios).toFixed(2) : ''} |`,
    );
  }
  console.log(`\n${total} no-op items, ${SIZE} per call, ${runs} runs\n\n${lines.join('\n')}`);
}

if (process.argv[2] === '--child') {
  child(JSON.parse(process.argv[3])).then(
    (result) => {
      process.send(result);
      process.exit(0);
    },
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
} else {
  main().catch((error) => {
    console.error(error);
    process.exit(2);
  });
}
