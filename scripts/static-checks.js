/**
 * The checks `npm test` runs beside jest (scripts/test.js), side by side: `npm run lint`, `npm run format:check`,
 * `npm run typecheck`; `node scripts/static-checks.js` runs them alone.
 * Each is one single-threaded process, so on two cores they take about as long as the slowest instead of their sum.
 * What the run prints and how it fails stay those of `lint && format:check && typecheck`: each check's output is
 * held back and written in that order, the first check that fails ends the run with its exit code, and the output
 * of the checks after it is not shown (they are stopped).
 */
const { spawn } = require('node:child_process');

const CHECKS = ['lint', 'format:check', 'typecheck'];
const WINDOWS = process.platform === 'win32';
const NPM = WINDOWS ? 'npm.cmd' : 'npm';

/** Starts `npm run <name>`; its output is kept, chunk by chunk in arrival order, with the stream it came on. */
function start(name) {
  const chunks = [];
  // A process group of its own (POSIX), so that stopping it stops what npm started too (the shell, tsc).
  const child = spawn(NPM, ['run', name], { stdio: ['ignore', 'pipe', 'pipe'], shell: WINDOWS, detached: !WINDOWS });
  child.stdout.on('data', (chunk) => chunks.push([process.stdout, chunk]));
  child.stderr.on('data', (chunk) => chunks.push([process.stderr, chunk]));
  const done = new Promise((resolve) => {
    child.on('error', (error) => {
      chunks.push([process.stderr, Buffer.from(`${error.stack ?? error}\n`)]);
      resolve(1);
    });
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  return { child, chunks, done };
}

/** Stops a child started with `detached` (its own process group on POSIX) with everything it started, if it still runs. */
function stopProcess(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (WINDOWS) child.kill();
    else process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

/** Stops a check that is still running, with everything it started. */
function stop(check) {
  stopProcess(check.child);
}

/**
 * Starts the checks side by side. `finished` resolves once they are settled as `lint && format:check && typecheck`
 * would be: with the first failing check's exit code (the checks after it stopped) or 0, and `report()` writes the
 * output that counts, in that order. `stop()` stops whatever still runs.
 */
function startStaticChecks() {
  const running = CHECKS.map(start);
  const finished = (async () => {
    for (const [index, check] of running.entries()) {
      const code = await check.done;
      if (code !== 0) {
        // As with `&&`: the checks after a failed one do not count; stop them rather than wait.
        running.slice(index + 1).forEach(stop);
        return { code, report: () => running.slice(0, index + 1).forEach(replay) };
      }
    }
    return { code: 0, report: () => running.forEach(replay) };
  })();
  return { finished, stop: () => running.forEach(stop) };
}

/** Writes a check's held output to the streams it came on. */
function replay(check) {
  for (const [stream, chunk] of check.chunks) stream.write(chunk);
}

/**
 * Passes SIGINT and SIGTERM on to `stopAll` before exiting: the checks (and jest, in scripts/test.js) are in process
 * groups of their own, which a Ctrl-C in the terminal does not reach.
 */
function stopOnSignals(stopAll) {
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.on(signal, () => {
      stopAll();
      process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    });
}

async function main() {
  const checks = startStaticChecks();
  stopOnSignals(checks.stop);
  const { code, report } = await checks.finished;
  report();
  process.exitCode = code;
}

module.exports = { startStaticChecks, stopOnSignals, stopProcess, WINDOWS };

if (require.main === module) void main();
