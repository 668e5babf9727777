'use strict';
// The cost of job groups on the claim: end-to-end processing rate of a backlog of no-op jobs on one
// queue, concurrency 50, for a queue without groups (the plain claim) and for a grouped queue (`groupConcurrency`
// set so high it never binds: what is measured is the price of the fair claim) whose jobs carry 0 (none), 10 or 1,000
// groups, on SQLite (node-sqlite3) and PostgreSQL. With GROUPS_BASE_DIST (a build of the library before this feature),
// the plain path of both builds is measured too: the A/B of what queues without groups pay. GROUPS_BACKLOGS (e.g.
// 10000,1000000) puts that many more jobs of the same groups behind the GROUPS_TOTAL processed ones, for the backlog
// target (the rate with a 1M backlog against a 10k one); GROUPS_CONFIGS (e.g. plain,g1000) picks configurations.
//
//   node bench/groups.js                         after `npm run build`
//   GROUPS_RUNS=3 GROUPS_TOTAL=20000 GROUPS_BACKENDS=sqlite,postgres GROUPS_BASE_DIST=bench/.data/base-dist node bench/groups.js
//
// Each measurement runs in a fresh child process; configurations are interleaved per run so a noisy spell hits all
// alike; the figure is the median. Prints a Markdown table.
const fs = require('node:fs');
const path = require('node:path');
const { forkSelf, median } = require('./lib/common');

const BENCH_DIR = __dirname;
const ROOT_DIR = path.join(BENCH_DIR, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const PG_URL = process.env.GROUPS_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const CONCURRENCY = 50;
const NEVER_BINDING = { groupConcurrency: 1_000_000 };

const CONFIGS = [
  { id: 'plain', label: 'no groups (plain claim)', groups: 0, options: {} },
  { id: 'g0', label: 'grouped claim, jobs without a group', groups: 0, options: NEVER_BINDING },
  { id: 'g10', label: 'grouped claim, 10 groups', groups: 10, options: NEVER_BINDING },
  { id: 'g1000', label: 'grouped claim, 1,000 groups', groups: 1000, options: NEVER_BINDING },
];

async function child(args) {
  require('reflect-metadata');
  const { Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const lib = require(args.dist);
  const schema = `bench_groups_${process.pid}`;
  const connection =
    args.backend === 'postgres' ? { postgres: { url: PG_URL, schema } } : { database: path.join(DATA_DIR, `groups-${process.pid}.sqlite`) };
  const quiet = { log() {}, debug() {}, verbose() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`), fatal() {} };
  const boot = async (providers, processing) => {
    class BenchModule {}
    Module({ imports: [lib.SqliteQueueModule.forRoot({ ...connection, processing })], providers })(BenchModule);
    return NestFactory.createApplicationContext(BenchModule, { logger: quiet, abortOnError: false });
  };
  const producerApp = await boot([], false);
  const producer = producerApp.get(lib.QueueProducer);
  const stored = args.total + (args.backlog ?? 0);
  for (let start = 0; start < stored; start += 5000) {
    await producer.addBulk(
      'q',
      Array.from({ length: Math.min(5000, stored - start) }, (_, i) => {
        const n = start + i;
        return { data: { n }, options: args.groups > 0 ? { group: `g${n % args.groups}` } : undefined };
      }),
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
  Object.defineProperty(P, 'name', { value: 'GroupsBench' });
  lib.Processor('q', { concurrency: CONCURRENCY, ...args.options })(P);
  const app = await boot([P], true);
  await finished;
  await app.close();
  if (args.backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(connection.database + suffix, { force: true });
  }
  process.send({ rate: (args.total - 1) / ((last - first) / 1000), cpuUs: (cpuLast.user + cpuLast.system) / (args.total - 1) });
}

/** This script again in a fresh process, for one measurement. */
const runChild = (args) => forkSelf(path.join(BENCH_DIR, 'groups.js'), args);

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const runs = Number(process.env.GROUPS_RUNS || 3);
  const total = Number(process.env.GROUPS_TOTAL || 20_000);
  const backends = (process.env.GROUPS_BACKENDS || 'sqlite,postgres').split(',');
  const dist = path.resolve(process.env.BENCH_DIST_DIR || path.join(ROOT_DIR, 'dist'));
  const baseDist = process.env.GROUPS_BASE_DIST ? path.resolve(process.env.GROUPS_BASE_DIST) : undefined;
  const picked = process.env.GROUPS_CONFIGS ? process.env.GROUPS_CONFIGS.split(',') : undefined;
  const backlogs = (process.env.GROUPS_BACKLOGS || '0').split(',').map(Number);
  const variants = [
    ...(baseDist ? [{ id: 'base-plain', label: 'no groups, build before groups', dist: baseDist, groups: 0, options: {} }] : []),
    ...CONFIGS.map((config) => ({ ...config, dist })),
  ].filter((variant) => !picked || picked.includes(variant.id));
  const results = {};
  for (let rep = 0; rep < runs; rep++) {
    for (const backend of backends) {
      for (const backlog of backlogs) {
        for (const variant of variants) {
          const args = { backend, total, backlog, dist: variant.dist, groups: variant.groups, options: variant.options };
          const result = await runChild(args);
          (((results[backend] ??= {})[backlog] ??= {})[variant.id] ??= []).push(result);
          process.stderr.write(
            `${backend} backlog ${backlog} ${variant.id} run ${rep + 1}: ${Math.round(result.rate)} jobs/s, ${result.cpuUs.toFixed(1)} µs/job\n`,
          );
        }
      }
    }
  }
  // Ratios against the plain claim of the same backlog, and against the same configuration with the first backlog.
  const base = variants.find((variant) => variant.id === 'plain') ?? variants[0];
  console.log(
    `| backend | backlog | configuration | jobs/s (median of ${runs}) | vs ${base.id} | vs backlog ${backlogs[0].toLocaleString('en-US')} | CPU µs/job (median) | vs ${base.id} |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  const pct = (value, reference) => `${value >= reference ? '+' : ''}${(((value - reference) / reference) * 100).toFixed(1)} %`;
  for (const backend of backends) {
    for (const backlog of backlogs) {
      const of = (id, b = backlog) => results[backend][b][id];
      const plainRate = median(of(base.id).map((r) => r.rate));
      const plainCpu = median(of(base.id).map((r) => r.cpuUs));
      for (const variant of variants) {
        const rate = median(of(variant.id).map((r) => r.rate));
        const cpu = median(of(variant.id).map((r) => r.cpuUs));
        const firstRate = median(of(variant.id, backlogs[0]).map((r) => r.rate));
        const same = variant.id === base.id;
        console.log(
          `| ${backend} | ${backlog.toLocaleString('en-US')} | ${variant.label} | ${Math.round(rate).toLocaleString('en-US')} | ${same ? '' : pct(rate, plainRate)} | ${backlog === backlogs[0] ? '' : `${((rate / firstRate) * 100).toFixed(0)} %`} | ${cpu.toFixed(1)} | ${same ? '' : pct(cpu, plainCpu)} |`,
        );
      }
    }
  }
}

if (process.argv[2] === '--child') {
  child(JSON.parse(process.argv[3])).then(
    () => process.exit(0),
    (error) => {
      process.stderr.write(`${error.stack}\n`);
      process.exit(1);
    },
  );
} else {
  main().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
}
