import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mapChildStack } from './child-build';
import type { CliRun } from './cli-child';

/** A file's bytes as a hash: a command that must change nothing leaves it equal. */
export function fileHash(path: string): string {
  return createHash('sha1').update(readFileSync(path)).digest('hex');
}

/** The run exited with `code`, said `stderrPattern` if given, and printed one clear line, never a stack trace. */
export function expectExit(run: CliRun, code: number, stderrPattern?: RegExp): void {
  if (run.code !== code) throw new Error(`exit ${run.code}, expected ${code}\nstdout: ${run.stdout}\nstderr: ${mapChildStack(run.stderr)}`);
  if (stderrPattern) expect(run.stderr).toMatch(stderrPattern);
  expect(run.stderr).not.toMatch(/\n\s+at /);
}
