'use strict';
// Helpers shared by the orchestrator, the adapters and the scenarios. Plain CommonJS, no dependencies.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork } = require('node:child_process');

const BENCH_DIR = path.join(__dirname, '..');
const ROOT_DIR = path.join(BENCH_DIR, '..');
const DATA_DIR = path.join(BENCH_DIR, '.data');
const DIST_DIR = process.env.BENCH_DIST_DIR ? path.resolve(process.env.BENCH_DIST_DIR) : path.join(ROOT_DIR, 'dist');

/** A path in bench/.data for a database file; removes any old file and its WAL/SHM first. */
function freshDbFile(name) {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const file = path.join(DATA_DIR, name);
  removeDb(file);
  return file;
}

function removeDb(file) {
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(file + suffix, { force: true });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds since an arbitrary origin, sub-millisecond precision. */
const now = () => performance.now();

function median(values) {
  const sorted = values.filter((v) => typeof v === 'number' && Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Nearest-rank percentile (p in 0..100) of an array of numbers. */
function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** p50/p95/p99/max of latency samples (ms): from add() resolved (the reported figure) and from add() called. */
function summarizeLatency(fromResolved, fromCalled, log) {
  const stats = (values) => ({
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: Math.max(...values),
  });
  return { samples: fromResolved.length, fromResolved: stats(fromResolved), fromCalled: stats(fromCalled), errors: log ? log.errors : 0 };
}

/** Samples this process's RSS every `everyMs` until stop() is called; stop() returns the peak in MiB. */
function rssSampler(everyMs = 50) {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), everyMs);
  return {
    stop() {
      clearInterval(timer);
      peak = Math.max(peak, process.memoryUsage().rss);
      return peak / 1048576;
    },
  };
}

/** Resolves when `predicate()` is true, checking every `everyMs`; rejects after `timeoutMs`. */
async function waitFor(predicate, { everyMs = 5, timeoutMs = 120_000, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/**
 * Runs `bench/child.js <module> <fn> <args>` in a new Node process and resolves with the object it reports.
 * The child reports over IPC; its stdout/stderr pass through (prefixed) so failures are visible. `env`: the child's
 * environment (default this process's), e.g. another `BENCH_DIST_DIR` for an A/B of two builds in one run.
 */
function runChild(modulePath, fn, args = {}, { timeoutMs = 180_000, onMessage, env } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(BENCH_DIR, 'child.js'), [modulePath, fn, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      execArgv: ['--expose-gc'],
      env: env ?? process.env,
    });
    let result;
    let stderr = '';
    const tag = `[${path.basename(modulePath, '.js')}.${fn}]`;
    child.stdout.on('data', (chunk) => process.stdout.write(prefixLines(tag, chunk)));
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      process.stderr.write(prefixLines(tag, chunk));
    });
    child.on('message', (message) => {
      if (message && message.type === 'result') result = message.value;
      else if (onMessage) onMessage(message, child);
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${tag} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (result !== undefined && code === 0) resolve(result);
      else reject(new Error(`${tag} exited with ${code ?? signal} without a result${stderr ? `: ${stderr.slice(-2000)}` : ''}`));
    });
    if (onMessage) onMessage({ type: 'spawned' }, child);
  });
}

function prefixLines(tag, chunk) {
  return String(chunk)
    .split('\n')
    .map((line, i, all) => (i === all.length - 1 && line === '' ? '' : `${tag} ${line}\n`))
    .join('');
}

/** Runs `fn` `runs` times in turn (fresh child each time) and returns the list of results. */
async function repeat(runs, fn) {
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await fn(i));
  return results;
}

/**
 * The consumer side of the multi-process protocol (scenario 6): says `ready` to the parent, waits for its `go`, and
 * returns a promise of its `stop`. Listeners are set before `ready`, so neither message can be missed.
 */
async function readyThenGo() {
  const message = (type) => new Promise((resolve) => process.on('message', (m) => m && m.type === type && resolve()));
  const go = message('go');
  const stopped = message('stop');
  process.send({ type: 'ready' });
  await go;
  return { stopped };
}

function machineInfo() {
  const cpus = os.cpus();
  return {
    cores: cpus.length,
    cpu: cpus[0] ? cpus[0].model : 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

/**
 * Runs `script` again as a child (`--child <args as JSON>`) from the repository root, for a measurement in a fresh
 * process, and resolves with the one message it sends (rejects when it exits without one).
 */
function forkSelf(script, args) {
  return new Promise((resolve, reject) => {
    const proc = fork(script, ['--child', JSON.stringify(args)], { cwd: ROOT_DIR, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result;
    proc.on('message', (message) => (result = message));
    proc.on('exit', (code) => (result ? resolve(result) : reject(new Error(`child exited ${code}`))));
  });
}

module.exports = {
  BENCH_DIR,
  ROOT_DIR,
  DATA_DIR,
  DIST_DIR,
  freshDbFile,
  removeDb,
  sleep,
  now,
  median,
  percentile,
  summarizeLatency,
  rssSampler,
  waitFor,
  runChild,
  forkSelf,
  repeat,
  readyThenGo,
  machineInfo,
};
