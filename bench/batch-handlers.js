'use strict';
// Batch handlers against single-job handlers doing the same per-job work: the end-to-end rate of a backlog of jobs
// on one queue, processed by a single-job processor (concurrency 100) or a batch processor (batch size 100,
// concurrency 100), with two kinds of per-job work: none (a no-op), and one INSERT per job into a side SQLite file
// (better-sqlite3, its own file: one autocommitted INSERT per job for the single handler, the batch's INSERTs in one
// transaction for the batch handler, which is what a batch is for). Backends: SQLite with better-sqlite3 and with
// node-sqlite3, and PostgreSQL when BATCH_BACKENDS names it and a server answers at BATCH_PG_URL.
//
//   npm run build && flock /work/test.lock node bench/batch-handlers.js
//   BATCH_RUNS=3 BATCH_TOTAL=20000 BATCH_BACKENDS=better-sqlite3,sqlite3,postgres node bench/batch-handlers.js
//
// Each measurement runs in a fresh child process; the configurations are interleaved within each run, so a noisy
// spell hits them alike, and the ratio reported is batch / single of the same run (then its median over runs).
// Writes bench/.data/batch-handlers.json and prints a Markdown table.
const fs = require('node:fs');
const path = require('node:path');
const { forkSelf, median } = require('./lib/common');

const BENCH_DIR = __dirname;
const ROOT_DIR = path.join(BENCH_DIR, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const PG_URL = process.env.BATCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const SIZE = 100;
const MODES = ['single', 'batch', 'batch-prefetch'];

async function child(args) {
  require('reflect-metadata');
  const { Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const Database = require('better-sqlite3');
  const lib = require(args.dist);
  const connection =
    args.backend === 'postgres'
      ? { postgres: { url: PG_URL, schema: `bench_batch_${process.pid}` } }
      : { database: path.join(DATA_DIR, `batch-${process.pid}.sqlite`), driver: args.backend };
  const sideFile = path.join(DATA_DIR, `batch-side-${process.pid}.sqlite`);
  const side = new Database(sideFile);
  side.pragma('journal_mode = WAL');
  side.exec('CREATE TABLE rows (n INTEGER NOT NULL)');
  const insert = side.prepare('INSERT INTO rows (n) VALUES (?)');
  const insertAll = side.transaction((values) => values.forEach((n) => insert.run(n)));
  const quiet = { log() {}, debug() {}, verbose() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`), fatal() {} };
  const boot = async (providers, processing) => {
    class BenchModule {}
    Module({ imports: [lib.SqliteQueueModule.forRoot({ ...connection, processing })], providers })(BenchModule);
    return NestFactory.createApplicationContext(BenchModule, { logger: quiet, abortOnError: false });
  };
  const producerApp = await boot([], false);
  const producer = producerApp.get(lib.QueueProducer);
  for (let start = 0; start < args.total; start += 1000) {
    await producer.addBulk(
      'work',
      Array.from({ length: 1000 }, (_, i) => ({ data: { n: start + i } })),
    );
  }
  await producerApp.close();
  let done = 0;
  let first = 0;
  let last = 0;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const count = (jobs) => {
    const t = performance.now();
    if (done === 0) first = t;
    done += jobs;
    last = t;
    if (done >= args.total) finish();
  };
  const insertEach = args.work === 'insert';
  const Single = class {
    async process(job) {
      if (insertEach) insert.run(job.data.n);
      count(1);
    }
  };
  const Batch = class {
    async process(jobs) {
      if (insertEach) insertAll(jobs.map((job) => job.data.n));
      count(jobs.length);
    }
  };
  const P = args.mode === 'single' ? Single : Batch;
  const options = {
    single: { concurrency: SIZE },
    batch: { batch: { size: SIZE } },
    // One batch claimed ahead: the next batch's claim overlaps the running one instead of following its outcomes.
    'batch-prefetch': { batch: { size: SIZE }, concurrency: SIZE, prefetch: SIZE },
  }[args.mode];
  lib.Processor('work', options)(P);
  const app = await boot([P], true);
  await finished;
  await app.close();
  side.close();
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(sideFile + suffix, { force: true });
  if (args.backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "bench_batch_${process.pid}" CASCADE`);
    await client.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(connection.database + suffix, { force: true });
  }
  // From the first job's end to the last one's: the boot and the adds are not in it.
  process.send({ rate: args.total / ((last - first) / 1000) });
}

/** This script again in a fresh process, for one measurement. */
const runChild = (args) => forkSelf(path.join(BENCH_DIR, 'batch-handlers.js'), args);

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const runs = Number(process.env.BATCH_RUNS || 3);
  const total = Number(process.env.BATCH_TOTAL || 20_000);
  const backends = (process.env.BATCH_BACKENDS || 'better-sqlite3,sqlite3,postgres').split(',');
  const dist = path.resolve(process.env.BENCH_DIST_DIR || path.join(ROOT_DIR, 'dist'));
  const works = ['noop', 'insert'];
  const results = {};
  for (let rep = 0; rep < runs; rep++) {
    for (const backend of backends) {
      for (const work of works) {
        for (const mode of MODES) {
          let rate;
          try {
            ({ rate } = await runChild({ backend, total, dist, work, mode }));
          } catch (error) {
            console.log(`${backend} ${work} ${mode} run ${rep + 1}/${runs}: failed (${error.message})`);
            continue;
          }
          (((results[backend] ??= {})[work] ??= {})[mode] ??= []).push(rate);
          console.log(`${backend} ${work} ${mode} run ${rep + 1}/${runs}: ${Math.round(rate)} jobs/s`);
        }
      }
    }
  }
  fs.writeFileSync(path.join(DATA_DIR, 'batch-handlers.json'), JSON.stringify({ runs, total, size: SIZE, results }, null, 2));
  const lines = [
    '| backend | per-job work | mode | jobs/s (median) | / single, same-run ratios | median ratio |',
    '|---|---|---|---|---|---|',
  ];
  for (const backend of Object.keys(results)) {
    for (const work of works) {
      const byMode = results[backend][work] ?? {};
      const single = byMode.single ?? [];
      for (const mode of MODES) {
        const rates = byMode[mode] ?? [];
        const ratios = single.map((rate, i) => (rates[i] === undefined ? NaN : rates[i] / rate)).filter(Number.isFinite);
        lines.push(
          `| ${backend} | ${work} | ${mode} | ${Math.round(median(rates))} | ${ratios.map((r) => r.toFixed(2)).join(', ')} | ${median(ratios).toFixed(2)} |`,
        );
      }
    }
  }
  console.log(`\n${runs} runs of ${total} jobs, one queue, concurrency ${SIZE}:\n\n${lines.join('\n')}`);
}

if (process.argv[2] === '--child')
  child(JSON.parse(process.argv[3])).catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
