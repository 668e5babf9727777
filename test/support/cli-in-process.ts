import { Logger } from '@nestjs/common';
import { runCli } from '../../lib/cli/run-cli';
import type { CliRun } from './cli-child';

/** Runs queued one after another: see `runCliInProcess`. */
let previous: Promise<unknown> = Promise.resolve();

/**
 * Runs `nestjs-sqlite-queue <args>` in the test's own process: `runCli` itself (what lib/cli/main.ts calls), with
 * its output collected, so a test of what a command prints, changes and returns pays no process start (Nest and
 * TypeORM are already loaded here; in a child they are most of a run). The result has the shape of `runCliChild`'s:
 * the exit code is what main.ts would set. The claims about being the package's `bin` (a process exiting with that
 * code, nothing printed past it) stay with `runCliChild`.
 *
 * Runs never overlap: `runCli` routes the library's log lines to its run's stderr through Nest's one static logger,
 * so two runs at once could print into each other's stderr. After each run that logger is what it was before, so
 * the log lines of the test's own apps are not written into a finished run's buffer.
 */
export function runCliInProcess(args: string[]): Promise<CliRun> {
  const run = previous.then(() => runOnce(args));
  previous = run.catch(() => undefined);
  return run;
}

async function runOnce(args: string[]): Promise<CliRun> {
  // Nest keeps the logger that Logger.overrideLogger set in a protected static; there is no getter to save it by.
  const before = Logger['staticInstanceRef'];
  let stdout = '';
  let stderr = '';
  try {
    const code = await runCli(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
    return { code, stdout, stderr };
  } finally {
    Logger.overrideLogger(before ?? false);
  }
}
