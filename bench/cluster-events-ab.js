'use strict';
// A/B of the hot path with cluster-wide events off and on, and against another build.
//   node bench/cluster-events-ab.js [jobs=20000] [runs=5]
// Each run is a fresh child process on a fresh database: enqueue `jobs` no-op jobs (addBulk, 1000 a call), then
// process them with concurrency 50 and time enqueue -> last completion. Variants run interleaved (A B C A B C …)
// so machine noise hits all alike; the median per variant is printed.
//   BENCH_AB_BASE_DIST=path/to/dist   adds variants "base" and "base-listened" (events-off and events-listened)
//                                     loaded from that build (e.g. the main branch's dist): before/after in one run
// Besides jobs/s it reports the CPU (user + system) the process spent per 1000 jobs, less sensitive to other load.
//   BENCH_AB_ORDER=alternate          reverses the order of the variants every other run (A B, B A, …): a run's slot
//                                     biased it on a loaded machine; use an even number of runs. Each run line gives
//                                     the 1-minute load average, and the summary the median of the run-by-run ratios.
//   BENCH_AB_DRIVER=better-sqlite3    (default sqlite3); BENCH_AB_PG=1 runs on PostgreSQL (127.0.0.1, trust auth)
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

async function child() {
  const [, , , variant, jobsText] = process.argv;
  const jobs = Number(jobsText);
  const { startLibraryApp } = require('./lib/library-app');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ab-'));
  const options = process.env.BENCH_AB_PG
    ? { postgres: { host: '127.0.0.1', username: 'postgres', database: 'test', schema: `ab_${process.pid}` } }
    : { database: path.join(dir, 'queue.sqlite'), driver: process.env.BENCH_AB_DRIVER || 'sqlite3' };
  // events-on: clusterEvents set but nobody listens anywhere (publishers stay quiet); events-listened: a process
  // listens (here this one, through QueueEvents), so every event of every job is published and read back.
  // local-listened: a QueueEvents subscriber without clusterEvents (the engine builds events, nothing is published).
  if (variant === 'events-on' || variant === 'events-listened') options.clusterEvents = true;
  let done = 0;
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const app = await startLibraryApp({
    options: { ...options, pollInterval: 1000 },
    queues: ['ab'],
    concurrency: 50,
    handler: () => {
      if (++done === jobs) setImmediate(resolveAll);
    },
  });
  let subscription;
  if (variant === 'events-listened' || variant === 'local-listened') {
    const events = app.app.get(require('./lib/library-app').lib.QueueEvents);
    subscription = events.subscribe(() => undefined);
    await events.listening();
  }
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  for (let start = 0; start < jobs; start += 1000) {
    await app.producer.addBulk(
      'ab',
      Array.from({ length: Math.min(1000, jobs - start) }, (_, i) => ({ data: { n: start + i } })),
    );
  }
  await all;
  // The last outcomes are written in batches: wait until the database says every job completed.
  while ((await app.admin.getCounts('ab')).completed < jobs) await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMsPerKJob = ((cpu.user + cpu.system) / 1000 / jobs) * 1000;
  subscription?.unsubscribe();
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ variant, jobsPerSecond: jobs / seconds, cpuMsPerKJob, errors: app.log.errors })}\n`);
}

function main() {
  const jobs = Number(process.argv[2] ?? 20000);
  const runs = Number(process.argv[3] ?? 5);
  const only = process.env.BENCH_AB_VARIANTS?.split(',');
  const variants = [
    ['events-off', undefined],
    ['events-on', undefined],
    ['events-listened', undefined],
    ['local-listened', undefined],
  ].filter(([name]) => !only || name === 'events-off' || only.includes(name)); // BENCH_AB_VARIANTS=none: events-off only
  if (process.env.BENCH_AB_BASE_DIST) {
    variants.push(['base', path.resolve(process.env.BENCH_AB_BASE_DIST)]);
    if (!only || only.includes('events-listened')) variants.push(['base-listened', path.resolve(process.env.BENCH_AB_BASE_DIST)]);
  }
  const results = new Map(variants.map(([name]) => [name, []]));
  const cpus = new Map(variants.map(([name]) => [name, []]));
  const alternate = process.env.BENCH_AB_ORDER === 'alternate';
  for (let run = 0; run < runs; run++) {
    for (const [name, dist] of alternate && run % 2 === 1 ? [...variants].reverse() : variants) {
      const env = { ...process.env, ...(dist ? { BENCH_DIST_DIR: dist } : {}) };
      const out = spawnSync(
        process.execPath,
        [process.argv[1], '--child', { base: 'events-off', 'base-listened': 'events-listened' }[name] ?? name, String(jobs)],
        {
          cwd: ROOT,
          env,
          encoding: 'utf8',
        },
      );
      if (out.status !== 0) throw new Error(`${name} failed: ${out.stderr}`);
      const line = JSON.parse(out.stdout.trim().split('\n').pop());
      results.get(name).push(line.jobsPerSecond);
      cpus.get(name).push(line.cpuMsPerKJob);
      process.stderr.write(
        `run ${run + 1} ${name}: ${Math.round(line.jobsPerSecond)} jobs/s, ${Math.round(line.cpuMsPerKJob)} ms CPU / 1000 jobs${line.errors ? ` (${line.errors} errors)` : ''}, load ${os.loadavg()[0].toFixed(1)}\n`,
      );
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const referenceOf = (name) => (name.startsWith('base') ? 'base' : 'events-off');
  for (const [name, values] of results) {
    const m = median(values);
    const reference = median(results.get(referenceOf(name)));
    const cpu = median(cpus.get(name));
    const cpuReference = median(cpus.get(referenceOf(name)));
    // The same runs paired: run i of this variant against run i of its reference.
    const paired = (series) => median(series.get(name).map((value, i) => value / series.get(referenceOf(name))[i]));
    console.log(
      `${name.padEnd(15)} median ${Math.round(m)} jobs/s (${((m / reference - 1) * 100).toFixed(1)} % vs ${referenceOf(name)}), ` +
        `${Math.round(cpu)} ms CPU / 1000 jobs (${((cpu / cpuReference - 1) * 100).toFixed(1)} %), ` +
        `paired ratios ${paired(results).toFixed(3)}× the rate, ${paired(cpus).toFixed(3)}× the CPU, runs: ${values.map(Math.round).join(', ')}, ` +
        `CPU: ${cpus.get(name).map(Math.round).join(', ')}`,
    );
  }
  if (results.has('base')) {
    // This build against the other, run by run: the before/after figure of a change.
    const ratios = (series) => series.get('events-off').map((value, i) => value / series.get('base')[i]);
    const rate = ratios(results);
    const cpu = ratios(cpus);
    console.log(
      `events-off ÷ base, paired runs: ${median(rate).toFixed(3)}× the rate (${rate.map((x) => x.toFixed(2)).join(', ')}), ` +
        `${median(cpu).toFixed(3)}× the CPU (${cpu.map((x) => x.toFixed(2)).join(', ')})`,
    );
  }
}

if (process.argv[2] === '--child') {
  child().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
} else {
  main();
}
