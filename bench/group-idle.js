'use strict';
// The idle target with job groups ("a claim stays one statement within the idle target"): the SQL
// statements per second an idle process sends with 1, 10 and 100 queues, each a grouped queue (`groupConcurrency`)
// or a plain one, on SQLite (node-sqlite3) and PostgreSQL. Statements are counted at the driver (every call of
// node-sqlite3's Database/Statement run, all, get, each, exec; every pg `Client.query`), so nothing the library sends
// is missed. One child process per configuration, all of a run side by side (they are idle); median of the runs.
//
//   npm run build && IDLE_RUNS=3 node bench/group-idle.js
const fs = require('node:fs');
const path = require('node:path');
const { forkSelf, median } = require('./lib/common');

const BENCH_DIR = __dirname;
const ROOT_DIR = path.join(BENCH_DIR, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const PG_URL = process.env.GROUPS_PG_URL || 'postgres://postgres@127.0.0.1:5432/test';
const POLL_INTERVAL = 1000;

/** Counts every statement call of the driver `backend` loads (patched before the library loads it). */
function countStatements(backend, dist) {
  const counter = { statements: 0 };
  const count = (proto, names) => {
    for (const name of names) {
      const original = proto[name];
      if (typeof original !== 'function') continue;
      proto[name] = function (...args) {
        counter.statements++;
        return original.apply(this, args);
      };
    }
  };
  if (backend === 'postgres') {
    count(require(require.resolve('pg', { paths: [dist] })).Client.prototype, ['query']);
  } else {
    const sqlite3 = require(require.resolve('sqlite3', { paths: [dist] }));
    count(sqlite3.Database.prototype, ['run', 'all', 'get', 'each', 'exec']);
    count(sqlite3.Statement.prototype, ['run', 'all', 'get', 'each']);
  }
  return counter;
}

async function child(args) {
  const counter = countStatements(args.backend, args.dist);
  require('reflect-metadata');
  const { Module } = require('@nestjs/common');
  const { NestFactory } = require('@nestjs/core');
  const lib = require(args.dist);
  const schema = `bench_gidle_${process.pid}`;
  const file = path.join(DATA_DIR, `group-idle-${process.pid}.sqlite`);
  const connection = args.backend === 'postgres' ? { postgres: { url: PG_URL, schema } } : { database: file };
  const quiet = { log() {}, debug() {}, verbose() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`), fatal() {} };
  const providers = Array.from({ length: args.queues }, (_, i) => {
    const P = class {
      async process() {}
    };
    Object.defineProperty(P, 'name', { value: `Idle${i}` });
    lib.Processor(`idle-${i}`, { concurrency: 1, ...(args.grouped ? { groupConcurrency: 2 } : {}) })(P);
    return P;
  });
  class BenchModule {}
  Module({ imports: [lib.SqliteQueueModule.forRoot({ ...connection, pollInterval: POLL_INTERVAL })], providers })(BenchModule);
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: quiet, abortOnError: false });
  await new Promise((resolve) => setTimeout(resolve, args.warmupMs));
  const before = { statements: counter.statements, t: performance.now() };
  await new Promise((resolve) => setTimeout(resolve, args.windowMs));
  const seconds = (performance.now() - before.t) / 1000;
  const statements = counter.statements - before.statements;
  await app.close();
  if (args.backend === 'postgres') {
    const { Client } = require('pg');
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  }
  process.send({ perSecond: statements / seconds });
}

/** This script again in a fresh process, for one measurement. */
const runChild = (args) => forkSelf(path.join(BENCH_DIR, 'group-idle.js'), args);

async function main() {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const runs = Number(process.env.IDLE_RUNS || 3);
  const backends = (process.env.GROUPS_BACKENDS || 'sqlite,postgres').split(',');
  const queueCounts = (process.env.IDLE_QUEUES || '1,10,100').split(',').map(Number);
  const dist = path.resolve(process.env.BENCH_DIST_DIR || path.join(ROOT_DIR, 'dist'));
  const combos = [];
  for (const backend of backends) {
    for (const grouped of [false, true]) for (const queues of queueCounts) combos.push({ backend, grouped, queues });
  }
  const results = new Map(combos.map((combo) => [JSON.stringify(combo), []]));
  for (let rep = 0; rep < runs; rep++) {
    const outcomes = await Promise.all(
      combos.map((combo) => runChild({ ...combo, dist, warmupMs: 3000, windowMs: 10_000 }).then((r) => [combo, r])),
    );
    for (const [combo, outcome] of outcomes) {
      results.get(JSON.stringify(combo)).push(outcome.perSecond);
      process.stderr.write(`run ${rep + 1} ${JSON.stringify(combo)}: ${outcome.perSecond.toFixed(2)} statements/s\n`);
    }
  }
  console.log(`| backend | kind | ${queueCounts.map((n) => `${n} queue${n === 1 ? '' : 's'}`).join(' | ')} |`);
  console.log(`|---|---|${queueCounts.map(() => '---|').join('')}`);
  for (const backend of backends) {
    for (const grouped of [false, true]) {
      const cells = queueCounts.map((queues) => `${median(results.get(JSON.stringify({ backend, grouped, queues }))).toFixed(2)}/s`);
      console.log(`| ${backend} | ${grouped ? 'grouped (groupConcurrency: 2)' : 'plain'} | ${cells.join(' | ')} |`);
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
