'use strict';
// What OpenTelemetry costs the hot path: enqueue then process `jobs` no-op jobs (concurrency 50),
// enqueue -> last completion, with the library's tracing in three states:
//   telemetry-off  module option telemetry: false (the package is never loaded: the reference)
//   api-no-sdk     @opentelemetry/api installed, no SDK registered (the default for an app that has the package only
//                  because a dependency brought it): the budget is <= 3 % of throughput
//   sdk            the real SDK registered (BasicTracerProvider, SimpleSpanProcessor, an exporter that drops
//                  spans): what recording a PRODUCER span per add and a CONSUMER span per job costs, for information
//   node bench/telemetry-overhead.js [jobs=20000] [runs=5]
//   node bench/telemetry-overhead.js --micro [iterations=200000]   the tracing calls of one job alone (see micro())
// BENCH_OTEL_ADD=single enqueues with one add() per job (20 in flight) instead of addBulk (1,000 a call): the
// PRODUCER span per add. BENCH_OTEL_DRIVER=better-sqlite3 (default sqlite3). Each run is a fresh child process on a
// fresh database; variants interleave (A B C A B C …) so machine noise hits all alike; medians are printed.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const VARIANTS = ['telemetry-off', 'api-no-sdk', 'sdk'];

function registerSdk() {
  const { trace, context } = require('@opentelemetry/api');
  const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');
  const { AsyncLocalStorageContextManager } = require('@opentelemetry/context-async-hooks');
  const exporter = { export: (spans, done) => done({ code: 0 }), shutdown: () => Promise.resolve() };
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
}

async function child() {
  const [, , , variant, jobsText] = process.argv;
  const jobs = Number(jobsText);
  if (variant === 'sdk') registerSdk();
  const { startLibraryApp } = require('./lib/library-app');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'otel-'));
  const options = {
    database: path.join(dir, 'queue.sqlite'),
    driver: process.env.BENCH_OTEL_DRIVER || 'sqlite3',
    pollInterval: 1000,
    telemetry: variant !== 'telemetry-off',
  };
  let done = 0;
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const app = await startLibraryApp({
    options,
    queues: ['otel'],
    concurrency: 50,
    handler: () => {
      if (++done === jobs) setImmediate(resolveAll);
    },
  });
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  if (process.env.BENCH_OTEL_ADD === 'single') {
    let next = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < jobs) await app.producer.add('otel', { n: next++ });
      }),
    );
  } else {
    for (let start = 0; start < jobs; start += 1000) {
      await app.producer.addBulk(
        'otel',
        Array.from({ length: Math.min(1000, jobs - start) }, (_, i) => ({ data: { n: start + i } })),
      );
    }
  }
  await all;
  while ((await app.admin.getCounts('otel')).completed < jobs) await new Promise((resolve) => setTimeout(resolve, 5));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuBefore);
  const loaded = Object.keys(require.cache).some((key) => key.includes(`${path.sep}@opentelemetry${path.sep}api${path.sep}`));
  await app.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({ variant, jobsPerSecond: jobs / seconds, cpuMsPerKJob: (cpu.user + cpu.system) / jobs, loaded, errors: app.log.errors })}\n`,
  );
}

function main() {
  const jobs = Number(process.argv[2] ?? 20000);
  const runs = Number(process.argv[3] ?? 5);
  const results = new Map(VARIANTS.map((name) => [name, { rates: [], cpus: [], loaded: false }]));
  for (let run = 0; run < runs; run++) {
    for (const name of VARIANTS) {
      const out = spawnSync(process.execPath, [process.argv[1], '--child', name, String(jobs)], { cwd: ROOT, encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`${name} failed: ${out.stderr}`);
      const line = JSON.parse(out.stdout.trim().split('\n').pop());
      const result = results.get(name);
      result.rates.push(line.jobsPerSecond);
      result.cpus.push(line.cpuMsPerKJob);
      result.loaded = line.loaded;
      process.stderr.write(
        `run ${run + 1} ${name}: ${Math.round(line.jobsPerSecond)} jobs/s, ${Math.round(line.cpuMsPerKJob)} ms CPU / 1000 jobs\n`,
      );
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const reference = results.get('telemetry-off');
  for (const [name, { rates, cpus, loaded }] of results) {
    const rate = median(rates);
    const cpu = median(cpus);
    console.log(
      `${name.padEnd(14)} median ${Math.round(rate)} jobs/s (${((rate / median(reference.rates) - 1) * 100).toFixed(1)} %), ` +
        `${Math.round(cpu)} ms CPU / 1000 jobs (${((cpu / median(reference.cpus) - 1) * 100).toFixed(1)} %), ` +
        `API loaded: ${loaded}, runs: ${rates.map(Math.round).join(', ')}`,
    );
  }
}

/**
 * `--micro`: the tracing work of one job alone, no database: what the producer and the worker call for one add and
 * one attempt with the API installed and no SDK (the check that skips tracing), in ns per job, against the 16.3 µs one job takes end to end at 61.3k jobs/s (docs/benchmarks.md).
 */
function micro() {
  const { DIST_DIR } = require('./lib/common');
  const { QueueTelemetry } = require(path.join(DIST_DIR, 'telemetry', 'queue-telemetry'));
  const iterations = Number(process.argv[3] ?? 200000);
  const job = { id: '1', queue: 'otel', name: null, attempts: 1, maxAttempts: 3, traceContext: null };
  const oneJob = (telemetry) => {
    if (telemetry.active) {
      const send = telemetry.send('otel', 1, { link: false });
      job.traceContext = send.traceContext;
      send.sent(['1']);
    }
    if (telemetry.active) {
      const span = telemetry.process(job);
      span.run(() => undefined);
      span.completed();
    }
  };
  const measure = (label, count) => {
    const telemetry = QueueTelemetry.create(true);
    for (let i = 0; i < Math.min(20000, count); i++) oneJob(telemetry);
    const samples = [];
    for (let round = 0; round < 5; round++) {
      const started = process.hrtime.bigint();
      for (let i = 0; i < count; i++) oneJob(telemetry);
      samples.push(Number(process.hrtime.bigint() - started) / count);
    }
    const ns = [...samples].sort((a, b) => a - b)[2];
    console.log(`${label.padEnd(12)} ${ns.toFixed(0)} ns per job (add + attempt), ${((ns / 16300) * 100).toFixed(2)} % of a 16.3 µs job`);
  };
  // Only the path without an SDK: a loop that never yields starves the SDK's span processor of its microtasks, so its
  // figure here would measure a growing backlog; the A/B above gives the SDK's cost.
  measure('api-no-sdk', iterations);
}

if (process.argv[2] === '--micro') {
  micro();
} else if (process.argv[2] === '--child') {
  child().catch((error) => {
    process.stderr.write(`${error.stack}\n`);
    process.exit(1);
  });
} else {
  main();
}
