'use strict';
// Scenario 5: two OS processes produce and consume on one database file at once (same 4 queues). Reports the
// total throughput (all jobs produced and handled, wall clock) and every SQLITE_BUSY / "database is locked"
// the library logged. Baseline: one process doing the same total alone.
const Database = require('better-sqlite3');
const { freshDbFile, runChild, repeat, now, sleep } = require('../lib/common');
const raw = require('../lib/raw-sql');

const CONCURRENCY = 50;
const CHUNK = 500;

/** Child: boot, say ready, wait for "go", produce `jobs` jobs in addBulk chunks while processing, until "stop". */
exports.contend = async ({ file, jobs, queues }) => {
  const { startLibraryApp } = require('../lib/library-app');
  let handled = 0;
  const app = await startLibraryApp({ options: { database: file }, queues, concurrency: CONCURRENCY, handler: () => void handled++ });
  const message = (type) => new Promise((resolve) => process.on('message', (m) => m && m.type === type && resolve()));
  const go = message('go');
  const stop = message('stop');
  process.send({ type: 'ready' });
  await go;
  const progress = setInterval(() => process.send({ type: 'progress', handled }), 10);
  const t = now();
  for (let done = 0, q = 0; done < jobs; done += CHUNK, q++) {
    const items = Array.from({ length: Math.min(CHUNK, jobs - done) }, (_, i) => ({ data: { pid: process.pid, i: done + i } }));
    await app.producer.addBulk(queues[q % queues.length], items);
  }
  const produceMs = now() - t;
  await stop;
  clearInterval(progress);
  await app.close();
  return {
    pid: process.pid,
    produced: jobs,
    produceMs,
    handled,
    errors: app.log.errors,
    busy: app.log.busy,
    errorSamples: app.log.samples,
  };
};

/** Parent: `processes` children share `total` jobs; the clock runs from "go" until every job was handled. */
async function once({ processes, total, queues, tag }) {
  const file = freshDbFile(`contention-${tag}.sqlite`);
  // Create the schema before the children race to do it (they would cope, but the clock should not see it).
  const setup = new Database(file);
  for (const pragma of raw.PRAGMAS) setup.pragma(pragma.replace(/^PRAGMA /, ''));
  for (const statement of raw.SCHEMA_SQL) setup.exec(statement);
  setup.close();

  const handledBy = new Map();
  const children = [];
  let ready = 0;
  let t0;
  let t1;
  const sendAll = (type) => children.forEach((child) => child.connected && child.send({ type }));
  const onMessage = (message, child) => {
    if (message.type === 'spawned') children.push(child);
    else if (message.type === 'ready' && ++ready === processes) {
      t0 = now();
      sendAll('go');
    } else if (message.type === 'progress') {
      handledBy.set(child.pid, message.handled);
      const sum = [...handledBy.values()].reduce((a, b) => a + b, 0);
      if (sum >= total && t1 === undefined) {
        t1 = now();
        sendAll('stop');
      }
    }
  };
  const outcomes = await Promise.all(
    Array.from({ length: processes }, () =>
      runChild('scenarios/contention.js', 'contend', { file, jobs: total / processes, queues }, { onMessage }),
    ),
  );
  await sleep(10);
  const check = new Database(file, { readonly: true });
  const rows = check.prepare(`SELECT status, COUNT(*) AS n FROM ${raw.T} GROUP BY status`).all();
  check.close();
  const counts = Object.fromEntries(rows.map((row) => [row.status, row.n]));
  const handled = outcomes.reduce((sum, o) => sum + o.handled, 0);
  return {
    processes,
    total,
    ms: t1 - t0,
    rate: (total / (t1 - t0)) * 1000,
    handled,
    duplicates: handled - total,
    completed: counts.completed || 0,
    busy: outcomes.reduce((sum, o) => sum + o.busy, 0),
    errors: outcomes.reduce((sum, o) => sum + o.errors, 0),
    errorSamples: outcomes.flatMap((o) => o.errorSamples).slice(0, 5),
    perProcess: outcomes.map(({ handled: h, produceMs }) => ({ handled: h, produceMs })),
  };
}

async function run({ runs, total, queues }) {
  const results = { single: [], two: [] };
  await repeat(runs, async (rep) => {
    for (const [key, processes] of [
      ['single', 1],
      ['two', 2],
    ]) {
      console.log(`contention: ${processes} process(es), ${total} jobs, run ${rep + 1}/${runs}`);
      const result = await once({ processes, total, queues, tag: `${key}-${rep}` });
      console.log(`  ${Math.round(result.rate)} jobs/s, busy ${result.busy}, errors ${result.errors}, duplicates ${result.duplicates}`);
      results[key].push(result);
    }
  });
  return { concurrency: CONCURRENCY, chunk: CHUNK, total, results };
}

module.exports.run = run;
