/**
 * `npm test`: the static checks (scripts/static-checks.js) and jest, started together. Jest alone leaves about a
 * quarter of two cores idle (its files mostly wait on leases, polls and child processes), and the checks are about
 * 80 s of single-threaded CPU: run first, they added their whole minute to the wall time; beside jest they fill
 * the idle share.
 *
 * It fails as `checks && jest` did, only sooner or later: a failing check ends the run at once with its exit code
 * (jest is stopped, and the check's output is written), a failing jest with jest's. Jest's output streams as it
 * comes; the checks' output, held back, is written after jest's (jest redraws its status lines on a terminal, which
 * text written in between would tear). Arguments go to jest: `npm test -- test/groups.e2e-spec.ts`.
 */
const { spawn } = require('node:child_process');
const { startStaticChecks, stopOnSignals, stopProcess, WINDOWS } = require('./static-checks');

async function main() {
  const checks = startStaticChecks();
  const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], {
    stdio: 'inherit',
    detached: !WINDOWS,
  });
  stopOnSignals(() => {
    checks.stop();
    stopProcess(jest);
  });
  const jestDone = new Promise((resolve) => {
    jest.on('error', (error) => {
      process.stderr.write(`${error.stack ?? error}\n`);
      resolve(1);
    });
    jest.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
  const checked = checks.finished.then((result) => {
    if (result.code !== 0) {
      stopProcess(jest);
      result.report();
      process.stderr.write(`\nnpm test: a static check failed (exit code ${result.code}); jest was stopped.\n`);
      process.exit(result.code);
    }
    return result;
  });
  const [jestCode, { report }] = await Promise.all([jestDone, checked]);
  process.stdout.write('\nStatic checks (lint, format:check, typecheck), run beside jest:\n');
  report();
  process.exitCode = jestCode;
}

void main();
