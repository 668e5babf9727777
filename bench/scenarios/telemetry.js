'use strict';
// Scenario 11: what OpenTelemetry costs the hot path. Each run is a fresh child process of
// bench/telemetry-overhead.js on a fresh node-sqlite3 file: `jobs` no-op jobs enqueued with addBulk then processed
// (concurrency 50), enqueue -> last completion, in three states, interleaved run by run (A B C A B C …) so that the
// machine's noise hits them alike: `telemetry: false` (the package never loaded: the reference), the API installed and
// no SDK registered (the budget: ≤ 3 % of throughput), the real SDK (BasicTracerProvider, SimpleSpanProcessor, an
// exporter that drops spans). Then the tracing calls of one job alone (`--micro`), no database: the figure that
// holds on a loaded machine, where the end-to-end runs swing by more than the budget.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT_DIR } = require('../lib/common');

const SCRIPT = path.join(__dirname, '..', 'telemetry-overhead.js');
const VARIANTS = ['telemetry-off', 'api-no-sdk', 'sdk'];

/** Runs the script with `args`; resolves with its stdout's last line. */
function runScript(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT, ...args], { cwd: ROOT_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(out.trim().split('\n').pop());
      else reject(new Error(`telemetry-overhead.js ${args.join(' ')} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}

exports.run = async ({ runs, jobs, microIterations }) => {
  const results = Object.fromEntries(VARIANTS.map((name) => [name, []]));
  for (let run = 0; run < runs; run++) {
    for (const name of VARIANTS) {
      const line = JSON.parse(await runScript(['--child', name, String(jobs)]));
      results[name].push({ rate: line.jobsPerSecond, cpuMsPerKJob: line.cpuMsPerKJob, loaded: line.loaded, errors: line.errors });
      console.log(`  telemetry ${name} run ${run + 1}: ${Math.round(line.jobsPerSecond)} jobs/s`);
    }
  }
  const microLine = await runScript(['--micro', String(microIterations)]);
  const micro = /(\d+) ns per job/.exec(microLine);
  return { jobs, runs, variants: VARIANTS, results, microNsPerJob: micro ? Number(micro[1]) : null, microIterations };
};
