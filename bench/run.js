'use strict';
// Runs every benchmark scenario unattended and writes bench/RESULTS.md and bench/throughput.svg.
//   npm run bench            (from the repository root: builds the library, installs bench/ with npm ci, runs this)
//   node bench/run.js        (skip build and install)
//   node bench/run.js --report-only   (re-renders RESULTS.md and the chart from bench/.data/results.json)
//   BENCH_QUICK=1 node bench/run.js   (tiny sizes, 1 run each: a smoke test of the harness, not a measurement;
//                                      writes bench/.data/RESULTS.quick.md and throughput.quick.svg)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { BENCH_DIR, DATA_DIR, DIST_DIR, machineInfo, now } = require('./lib/common');

const QUICK = process.env.BENCH_QUICK === '1';
const QUEUES = ['bench-a', 'bench-b', 'bench-c', 'bench-d'];
const CONFIG = {
  queues: QUEUES,
  throughput: { runs: QUICK ? 1 : 5, total: QUICK ? 4_000 : 100_000, chunk: 1_000, addOneCount: QUICK ? 500 : 5_000 },
  // 700 adds a run (p99: the 7th largest): at 1,000 the scenario took 3.1 of the run's 15.1 minutes (2026-12-07 12:25 UTC).
  latency: { runs: QUICK ? 1 : 5, count: QUICK ? 100 : 700, gapMs: 10, warmup: QUICK ? 10 : 20 },
  idle: { runs: QUICK ? 1 : 5, queueCounts: [1, 10, 100], warmupMs: 1_500, windowMs: QUICK ? 2_000 : 5_000 },
  backlog: { runs: QUICK ? 1 : 5, jobs: QUICK ? 2_000 : 20_000, backlogs: QUICK ? [10_000, 100_000] : [10_000, 1_000_000] },
  contention: { runs: QUICK ? 1 : 5, total: QUICK ? 4_000 : 30_000 },
  postgres: { runs: QUICK ? 1 : 5, total: QUICK ? 2_000 : 50_000, chunk: 1_000 },
  // At least 5 interleaved runs for every scenario whose rows judge a target on a median, so each row's per-run
  // range rests on enough runs to show the spread.
  concurrentAdd: {
    runs: QUICK ? 1 : 5,
    sizes: { total: QUICK ? 2_000 : 20_000, inFlight: 1_000, loneCount: QUICK ? 100 : 2_000, warmup: QUICK ? 20 : 100 },
  },
  pgLatency: { runs: QUICK ? 1 : 5, count: QUICK ? 50 : 300, gapMs: 10, warmup: QUICK ? 5 : 20 },
  footprint: {
    count: QUICK ? 5_000 : 100_000,
    retention: { rounds: QUICK ? 3 : 15, perRound: QUICK ? 4_000 : 40_000, keep: 1_000 },
  },
  telemetry: { runs: QUICK ? 1 : 5, jobs: QUICK ? 2_000 : 10_000, microIterations: QUICK ? 20_000 : 1_000_000 },
  realHandlers: {
    runs: QUICK ? 1 : 5,
    loads: [
      { concurrency: 100, total: QUICK ? 2_000 : 20_000 },
      { concurrency: 10, total: QUICK ? 800 : 20_000 },
    ],
  },
};
const RESULTS_FILE = QUICK ? path.join(DATA_DIR, 'RESULTS.quick.md') : path.join(BENCH_DIR, 'RESULTS.md');
const CHART_FILE = QUICK ? path.join(DATA_DIR, 'throughput.quick.svg') : path.join(BENCH_DIR, 'throughput.svg');

/**
 * The hand-written parts of an existing RESULTS.md that a run keeps: the "Reading" (with the run it was written for),
 * and the rows of the targets measured by their own scripts (groups, search costs), which sit below a marker of their
 * own. Generated rows are never carried over: a scenario that did not run must not leave an old figure looking like
 * this run's.
 */
function existingHandWritten() {
  if (!fs.existsSync(RESULTS_FILE)) return { reading: undefined, otherTargets: [] };
  const text = fs.readFileSync(RESULTS_FILE, 'utf8');
  // The marker reads `run=<date>: written by hand…`; the colon after the date is not part of it (reading it in added a
  // colon at each re-render).
  const reading = /## Reading\n\n<!-- READING run=(\S*?):* written[^\n]*-->\n([\s\S]*?)\n## /.exec(text);
  const targets = /<!-- OTHER-TARGETS[^\n]*-->\n\n\| target[^\n]*\n\|---[^\n]*\n((?:\|[^\n]*\n)*)/.exec(text);
  return {
    reading: reading && !/^_To be written/.test(reading[2].trim()) ? { run: reading[1], text: reading[2].trim() } : undefined,
    otherTargets: targets ? targets[1].split('\n').filter((line) => line.startsWith('|')) : [],
  };
}

/** Writes the chart and RESULTS.md from the collected data. */
async function render(data) {
  const { buildReport, chartRows } = require('./report');
  const { throughputSvg } = require('./chart');
  const title = `Throughput, ${data.config.throughput.total.toLocaleString('en-US')} no-op jobs, ${data.config.queues.length} queues (median of ${data.config.throughput.runs})`;
  fs.writeFileSync(CHART_FILE, await throughputSvg(chartRows(data), title));
  Object.assign(data, existingHandWritten());
  fs.writeFileSync(RESULTS_FILE, buildReport(data) + '\n');
}

async function main() {
  if (process.argv.includes('--report-only')) {
    await render(JSON.parse(fs.readFileSync(path.join(DATA_DIR, 'results.json'), 'utf8')));
    console.log(
      `Rewrote ${path.relative(process.cwd(), RESULTS_FILE)} and ${path.relative(process.cwd(), CHART_FILE)} from bench/.data/results.json`,
    );
    return;
  }
  if (!fs.existsSync(path.join(DIST_DIR, 'index.js')))
    throw new Error('dist/ is missing: run `npm run build` at the repository root first');
  // The SQLite drivers are the root devDependencies (the library's peers): the raw ceilings and plainjob use the
  // very same builds as the library, and the bench install needs no native compilation.
  for (const name of [
    'sqlite3',
    'better-sqlite3',
    'typeorm',
    '@nestjs/core',
    'bullmq',
    'plainjob',
    'pg',
    'pg-boss',
    'graphile-worker',
    'vega-lite',
    '@opentelemetry/api',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/context-async-hooks',
  ]) {
    try {
      require.resolve(name, { paths: [BENCH_DIR] });
    } catch {
      throw new Error(`cannot resolve ${name}: run \`npm ci\` at the repository root and \`npm --prefix bench ci\``);
    }
  }
  const started = now();
  fs.rmSync(DATA_DIR, { recursive: true, force: true });
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const { collectVersions } = require('./lib/versions');
  const versions = await collectVersions();

  const data = { date: new Date().toISOString(), machine: machineInfo(), versions, config: CONFIG };
  data.timings = {};
  // The machine's 1-minute load average, sampled through the run and kept per scenario, so a report taken while
  // something else ran says so itself (the benchmark's own processes count too: up to about its core count).
  data.load = {};
  let loadSamples = [];
  const sampleLoad = () => loadSamples.push(os.loadavg()[0]);
  const loadTimer = setInterval(sampleLoad, 5000);
  loadTimer.unref();
  const scenario = async (name, args) => {
    const t = now();
    loadSamples = [];
    sampleLoad();
    data[name] = await require(`./scenarios/${name}`).run(args);
    sampleLoad();
    data.timings[name] = now() - t;
    data.load[name] = { min: Math.min(...loadSamples), max: Math.max(...loadSamples) };
    console.log(
      `${name}: done in ${(data.timings[name] / 1000).toFixed(0)} s (load ${data.load[name].min.toFixed(1)}-${data.load[name].max.toFixed(1)})`,
    );
  };
  await scenario('throughput', { ...CONFIG.throughput, queues: QUEUES });
  await scenario('latency', CONFIG.latency);
  await scenario('idle', CONFIG.idle);
  await scenario('backlog', { ...CONFIG.backlog, queues: QUEUES });
  await scenario('contention', { ...CONFIG.contention, queues: QUEUES });
  // Skipped with a note (not failed) when no PostgreSQL server answers on 127.0.0.1:5432.
  await scenario('postgres', { ...CONFIG.postgres, queues: QUEUES });
  await scenario('concurrent-add', CONFIG.concurrentAdd);
  await scenario('real-handlers', { ...CONFIG.realHandlers, queues: QUEUES });
  await scenario('footprint', { ...CONFIG.footprint, queues: QUEUES });
  await scenario('pg-latency', CONFIG.pgLatency);
  // The tracing's cost with the API installed and no SDK (budget 3 %), and with the SDK.
  await scenario('telemetry', CONFIG.telemetry);
  clearInterval(loadTimer);
  data.durationMs = now() - started;
  await render(data);
  // Keep the raw results; delete the database files.
  fs.writeFileSync(path.join(DATA_DIR, 'results.json'), JSON.stringify(data, null, 1));
  for (const name of fs.readdirSync(DATA_DIR))
    if (/\.sqlite(-wal|-shm|-journal)?$/.test(name)) fs.rmSync(path.join(DATA_DIR, name), { force: true });
  console.log(
    `\nWrote ${path.relative(process.cwd(), RESULTS_FILE)} and ${path.relative(process.cwd(), CHART_FILE)} in ${(data.durationMs / 60000).toFixed(1)} min`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error && error.stack ? error.stack : error);
    process.exit(1);
  },
);
