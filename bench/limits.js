'use strict';
// The cost of queue limits on the hot path: end-to-end processing rate of a backlog of
// no-op jobs over 4 queues, concurrency 50, with and without a rate limiter and a global concurrency that never bind
// (so what is measured is the price of the limited claim, not the limit), on SQLite (node-sqlite3) and PostgreSQL.
// With LIMITS_BASE_DIST (a build of the library before this feature, inside this repository), the plain path of
// both builds is measured too: the A/B of what unlimited queues pay.
//
//   node bench/limits.js                         after `npm run build`
//   LIMITS_RUNS=5 LIMITS_TOTAL=40000 LIMITS_BACKENDS=sqlite,postgres LIMITS_BASE_DIST=bench/.data/base-dist node bench/limits.js
//
// Each measurement runs in a fresh child process; configurations are interleaved per run so a noisy spell hits
// all alike; the figure is the median. Writes bench/.data/limits.json and prints a Markdown table.
const fs = require('node:fs');
const path = require('node:path');
const { forkSelf, median } = require('./lib/common');

const BENCH_DIR = __dirname;
const ROOT_DIR = path.join(BENCH_DIR, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const PG_URL = process.env.LIMITS_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const QUEUES = ['q0', 'q1', 'q2', 'q3'];
const CONCURRENCY = 50;

const CONFIGS = [
  { id: 'plain', label: 'no limits', options: {} },
  { id: 'limiter', label: 'limiter (never binding)', options: { limiter: { max: 1_000_000_000, duration: 1000 } } },
  { id: 'global', label: 'globalConcurrency (never binding)', options: { globalConcurrency: 1_000_000 } },
  {
    id: 'both',
    label: 'limiter + globalConcurrency',
    options: { limiter: { max: 1_000_000_000, duration: 1000 }, globalConcurrency: 1_000_000 },
  },
];

async function child(args) {
  require('reflect-metadata');
  const { Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const lib = require(args.dist);
  const connection =
    args.backend === 'postgres'
      ? { postgres: { url: PG_URL, schema: `bench_limits_${process.pid}` } }
      : { database: path.join(DATA_DIR, `limits-${process.pid}.sqlite`) };
  const quiet = { log() {}, debug() {}, verbose() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`), fatal() {} };
  const boot = async (providers, processing) => {
    class BenchModule {}
    Module({ imports: [lib.SqliteQueueModule.forRoot({ ...connection, processing })], providers })(BenchModule);
    return NestFactory.createApplicationContext(BenchModule, { logger: quiet, abortOnError: false });
  };
  const producerApp = await boot([], false);
  const producer = producerApp.get(lib.QueueProducer);
  for (let start = 0; start < args.total; start += 1000) {
    const queue = QUEUES[(start / 1000) % QUEUES.length];
    await producer.addBulk(
      queue,
      Array.from({ length: 1000 }, (_, i) => ({ data: { n: start + i } })),
    );
  }
  await producerApp.close();
  let done = 0;
  let first = 0;
  let last = 0;
  let cpuFirst;
  let cpuLast;
  let finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const providers = QUEUES.map((queue) => {
    const P = class {
      async process() {
        const t = performance.now();
        if (done++ === 0) {
          first = t;
          cpuFirst = process.cpuUsage();
        }
        last = t;
        if (done === args.total) {
          cpuLast = process.cpuUsage(cpuFirst);
          finish();
        }
      }
    };
    Object.defineProperty(P, 'name', { value: `Limits_${queue}` });
    lib.Processor(queue, { concurrency: CONCURRENCY, ...args.options })(P);
    return P;
  });
  const app = await boot(providers, true);
  await finished;
  await app.close();
  if (args.backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "bench_limits_${process.pid}" CASCADE`);
    await client.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(connection.database + suffix, { force: true });
  }
  // CPU of this process (all its threads: SQLite runs here, in libuv's pool) per job: far steadier than the wall
  // clock on a shared machine. On PostgreSQL the server's CPU is not in it.
  process.send({ rate: (args.total - 1) / ((last - first) / 1000), cpuUs: (cpuLast.user + cpuLast.system) / (args.total - 1) });
}

/** This script again in a fresh process, for one measurement. */
const runChild = (args) => forkSelf(path.join(BENCH_DIR, 'limits.js'), args);

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const runs = Number(process.env.LIMITS_RUNS || 5);
  const total = Number(process.env.LIMITS_TOTAL || 40_000);
  const backends = (process.env.LIMITS_BACKENDS || 'sqlite,postgres').split(',');
  const dist = path.resolve(process.env.BENCH_DIST_DIR || path.join(ROOT_DIR, 'dist'));
  const baseDist = process.env.LIMITS_BASE_DIST ? path.resolve(process.env.LIMITS_BASE_DIST) : undefined;
  // LIMITS_CONFIGS=plain narrows the run to some configurations (the A/B alone, say); `plain` is always kept.
  const only = process.env.LIMITS_CONFIGS ? ['plain', ...process.env.LIMITS_CONFIGS.split(',')] : undefined;
  const variants = [
    ...(baseDist ? [{ id: 'base-plain', label: 'no limits, build before this feature', dist: baseDist, options: {} }] : []),
    ...CONFIGS.filter((config) => !only || only.includes(config.id)).map((config) => ({ ...config, dist })),
  ];
  const results = {};
  const cpu = {};
  for (let rep = 0; rep < runs; rep++) {
    for (const backend of backends) {
      for (const variant of variants) {
        const { rate, cpuUs } = await runChild({ backend, total, dist: variant.dist, options: variant.options });
        ((results[backend] ??= {})[variant.id] ??= []).push(rate);
        ((cpu[backend] ??= {})[variant.id] ??= []).push(cpuUs);
        console.log(`${backend} ${variant.id} run ${rep + 1}/${runs}: ${Math.round(rate)} jobs/s, ${cpuUs.toFixed(1)} µs CPU/job`);
      }
    }
  }
  fs.writeFileSync(path.join(DATA_DIR, 'limits.json'), JSON.stringify({ runs, total, results, cpu }, null, 2));
  const lines = [
    '| backend | configuration | jobs/s (median) | vs no limits | client CPU µs/job (median) | vs no limits | jobs/s of each run |',
    '|---|---|---|---|---|---|---|',
  ];
  const change = (value, base) => (value === base ? '' : `${value >= base ? '+' : ''}${(((value - base) / base) * 100).toFixed(1)} %`);
  for (const backend of backends) {
    const plainRate = median(results[backend].plain);
    const plainCpu = median(cpu[backend].plain);
    for (const variant of variants) {
      const rates = results[backend][variant.id];
      const rate = median(rates);
      const cpuUs = median(cpu[backend][variant.id]);
      lines.push(
        `| ${backend} | ${variant.label} | ${Math.round(rate)} | ${change(rate, plainRate)} | ${cpuUs.toFixed(1)} | ${change(cpuUs, plainCpu)} | ${rates.map(Math.round).join(', ')} |`,
      );
    }
  }
  console.log(`\n${runs} runs of ${total} no-op jobs, 4 queues, concurrency 50:\n\n${lines.join('\n')}`);
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
