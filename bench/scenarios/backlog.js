'use strict';
// Scenario 4: does a deep table slow the claim down? The library processes the same number of jobs from a
// table that starts with `processed + backlog` pending jobs (4 queues), backlog = 10,000 vs 1,000,000; it
// reports jobs/s and the peak RSS of the processing process. The tables are filled once per size with raw
// multi-row inserts in the library's own schema, their queues paused, then copied fresh for every run: the library
// boots paused and its throughput is timed from when it resumes the queues, outside the boot, as in scenario 1.
const fs = require('node:fs');
const path = require('node:path');
const Database = require('better-sqlite3');
const { DATA_DIR, freshDbFile, removeDb, runChild, repeat, now, rssSampler, waitFor } = require('../lib/common');
const raw = require('../lib/raw-sql');

const ROWS_PER_INSERT = 500;
const CONCURRENCY = 50;

/**
 * Child: a table with `pending` due jobs spread over `queues`, the queues paused (so a run's consumer boots and takes
 * nothing until it resumes them), checkpointed so it starts without a WAL.
 */
exports.fill = async ({ file, pending, queues }) => {
  const t = now();
  removeDb(file);
  const db = new Database(file);
  for (const pragma of raw.PRAGMAS) db.pragma(pragma.replace(/^PRAGMA /, ''));
  for (const statement of raw.SCHEMA_SQL) db.exec(statement);
  const insert = db.prepare(raw.insertSql(ROWS_PER_INSERT));
  const time = Date.now() - 60_000;
  const fillRange = db.transaction((from, to) => {
    const params = [];
    for (let id = from; id < to; id++) {
      params.push(...raw.rowParams(queues[id % queues.length], '{}', time));
      if (params.length === ROWS_PER_INSERT * 5) insert.run(params.splice(0));
    }
    if (params.length) db.prepare(raw.insertSql(params.length / 5)).run(params);
  });
  for (let from = 0; from < pending; from += 100_000) fillRange(from, Math.min(pending, from + 100_000));
  db.close();
  // Paused through the library's own admin call, from a producer-only app (processing: false): it takes nothing.
  const { startLibraryApp } = require('../lib/library-app');
  const app = await startLibraryApp({ options: { database: file, processing: false } });
  for (const queue of queues) await app.admin.pause(queue);
  await app.close();
  const checkpoint = new Database(file);
  checkpoint.pragma('wal_checkpoint(TRUNCATE)');
  checkpoint.close();
  return { pending, ms: now() - t, bytes: fs.statSync(file).size };
};

/**
 * Child: boots the library on a filled table (its queues paused), resumes them and times `jobs` handler calls from
 * the resume; the first job counts from the start of boot (boot, resume and first claim: a boot-inclusive latency).
 */
exports.process = async ({ file, jobs, queues }) => {
  const { startLibraryApp } = require('../lib/library-app');
  let handled = 0;
  let firstAt;
  const rss = rssSampler();
  const bootAt = now();
  const app = await startLibraryApp({
    options: { database: file },
    queues,
    concurrency: CONCURRENCY,
    handler: () => {
      if (handled++ === 0) firstAt = now();
    },
  });
  const t = now();
  for (const queue of queues) await app.admin.resume(queue);
  await waitFor(() => handled >= jobs, { what: `${jobs} handler calls`, timeoutMs: 300_000 });
  const ms = now() - t;
  const rssMiB = rss.stop();
  await app.close();
  return {
    jobs,
    ms,
    rate: (jobs / ms) * 1000,
    firstJobMs: firstAt - bootAt,
    bootMs: t - bootAt,
    rssMiB,
    errors: app.log.errors,
    errorSamples: app.log.samples,
  };
};

/** Parent. */
async function run({ runs, jobs, backlogs, queues }) {
  const results = {};
  const fills = {};
  for (const backlog of backlogs) {
    const template = freshDbFile(`backlog-${backlog}-template.sqlite`);
    console.log(`backlog: filling ${jobs + backlog} pending jobs`);
    fills[backlog] = await runChild('scenarios/backlog.js', 'fill', { file: template, pending: jobs + backlog, queues });
    results[backlog] = [];
  }
  await repeat(runs, async (rep) => {
    for (const backlog of backlogs) {
      const file = freshDbFile(`backlog-${backlog}-run.sqlite`);
      fs.copyFileSync(path.join(DATA_DIR, `backlog-${backlog}-template.sqlite`), file);
      console.log(`backlog: ${backlog} behind ${jobs} jobs, run ${rep + 1}/${runs}`);
      const result = await runChild('scenarios/backlog.js', 'process', { file, jobs, queues });
      console.log(`  ${Math.round(result.rate)} jobs/s, RSS ${result.rssMiB.toFixed(0)} MiB`);
      results[backlog].push(result);
      removeDb(file);
    }
  });
  for (const backlog of backlogs) removeDb(path.join(DATA_DIR, `backlog-${backlog}-template.sqlite`));
  return { jobs, backlogs, concurrency: CONCURRENCY, queues: queues.length, fills, results };
}

module.exports.run = run;
