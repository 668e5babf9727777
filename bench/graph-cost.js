'use strict';
// What a dependency chain costs to add and to fail down its length, by backend and length: `addGraph` of N jobs of
// one queue, each depending on the one before with `onDependencyFailure: 'fail'` (the longest path a graph can
// have), timed from the call to its answer; then `cancel` of the first job, whose statement fails the whole chain
// (the cascade runs in the database, in that statement), timed the same way and checked: every job ends failed or
// cancelled. Nothing is processed (`processing: false`). Each measurement is a fresh database: a SQLite file, or a
// PostgreSQL schema dropped afterwards. Wall time on a machine that may be shared: read the ratios between lengths.
//
//   npm run build && node bench/graph-cost.js      (PostgreSQL on 127.0.0.1:5432, database queue_bench)
//   GRAPH_COST_SIZES=1000,2500,5000,10000 GRAPH_COST_BACKENDS=better-sqlite3,postgres node bench/graph-cost.js
const { PG_URL, ensureBenchDatabase, withClient } = require('./lib/postgres');

const SIZES = (process.env.GRAPH_COST_SIZES ?? '1000,2500,5000,10000').split(',').map(Number);
const BACKENDS = (process.env.GRAPH_COST_BACKENDS ?? 'better-sqlite3,postgres').split(',');
const SCHEMA = 'bench_graph_cost';
const QUEUE = 'chain';

async function measure(backend, size) {
  const { startLibraryApp } = require('./lib/library-app');
  const { freshDbFile, removeDb } = require('./lib/common');
  let options;
  let cleanup;
  if (backend === 'postgres') {
    await withClient(PG_URL, (client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`));
    options = { postgres: { url: PG_URL, schema: SCHEMA } };
    cleanup = () => withClient(PG_URL, (client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`));
  } else {
    const file = freshDbFile(`graph-cost-${size}.sqlite`);
    options = { database: file, driver: backend };
    cleanup = async () => removeDb(file);
  }
  const app = await startLibraryApp({ options: { ...options, processing: false } });
  try {
    const jobs = Array.from({ length: size }, (_, i) => ({
      ref: `j${i}`,
      queue: QUEUE,
      data: { i },
      options: i === 0 ? {} : { dependsOn: [{ ref: `j${i - 1}` }], onDependencyFailure: 'fail' },
    }));
    let started = performance.now();
    const ids = await app.producer.addGraph(jobs);
    const addMs = performance.now() - started;
    started = performance.now();
    await app.admin.cancel(ids[0].id);
    const cascadeMs = performance.now() - started;
    const counts = await app.admin.getCounts(QUEUE);
    if (counts.failed + counts.cancelled !== size) throw new Error(`${backend} ${size}: the cascade left ${JSON.stringify(counts)}`);
    return { addMs, cascadeMs };
  } finally {
    await app.close();
    await cleanup();
  }
}

async function main() {
  if (BACKENDS.includes('postgres')) await ensureBenchDatabase();
  console.log(`A chain of N jobs (each waits for the one before, onDependencyFailure 'fail'): addGraph, then cancel of the first\n`);
  console.log('| backend | N | addGraph ms | cancel + cascade ms | add µs per job | cascade µs per job |');
  console.log('|---|---|---|---|---|---|');
  for (const backend of BACKENDS) {
    for (const size of SIZES) {
      const { addMs, cascadeMs } = await measure(backend, size);
      console.log(
        `| ${backend} | ${size} | ${addMs.toFixed(0)} | ${cascadeMs.toFixed(0)} | ${((addMs * 1000) / size).toFixed(0)} | ${((cascadeMs * 1000) / size).toFixed(0)} |`,
      );
    }
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
