/**
 * Child processes run compiled JavaScript, not ts-node: booting a fixture through ts-node transpiles the whole
 * library again in every child (about 200 files), which cost 5-10 s a child on the shared test machine, against
 * well under 1 s to start from JavaScript. The e2e project's global setup compiles the fixtures, and what they
 * import, once per jest run into a folder of that run; child-app.ts starts `node <compiled file>` from there.
 *
 * Always a fresh build, never a cached one: a child must run the source as it is when the run starts. Type errors
 * are not this build's business (`tsc --noEmit` and ts-jest report them); it only emits, as ts-node's
 * transpile-only mode did, so a build takes seconds. No jest globals here: the global setup imports this file.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import * as ts from 'typescript';

/** The repository root. */
const ROOT = join(__dirname, '..', '..');

/** Where every run's build goes: a folder per run, named by the pid of the jest process (ignored by git). */
const BUILDS_DIR = join(ROOT, '.tmp', 'child-build');

/** Environment variable naming this run's build folder (set by the global setup, read by child-app.ts). */
export const CHILD_BUILD_ENV = 'QUEUE_TEST_CHILD_BUILD';

/** The folder whose TypeScript files children are started from; what they import is compiled with them. */
const FIXTURES_DIR = join(ROOT, 'test', 'fixtures');

/** The sample app's entry point, also started as a child. */
const SAMPLE_MAIN = join(ROOT, 'sample', 'main.ts');

/** The CLI's entry point (the package's `bin`), which test/cli.e2e-spec.ts and test/promote.e2e-spec.ts run. */
const CLI_MAIN = join(ROOT, 'lib', 'cli', 'main.ts');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the builds of runs whose jest process is gone (a crashed or interrupted run has no teardown). */
function removeOrphanBuilds(): void {
  if (!existsSync(BUILDS_DIR)) return;
  for (const name of readdirSync(BUILDS_DIR)) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid || !alive(pid)) rmSync(join(BUILDS_DIR, name), { recursive: true, force: true });
  }
}

/**
 * Compiles test/fixtures/*.ts and everything they import (lib/, test/support/...) with the repository's
 * tsconfig.json into a fresh folder of this run, and names it in `QUEUE_TEST_CHILD_BUILD` for the workers.
 */
export function buildChildScripts(): string {
  removeOrphanBuilds();
  const outDir = join(BUILDS_DIR, String(process.pid));
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const configPath = join(ROOT, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error) throw new Error(`child build: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, ROOT, undefined, configPath);
  const roots = [
    ...readdirSync(FIXTURES_DIR)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => join(FIXTURES_DIR, name)),
    // The demonstration, which test/sample-app.e2e-spec.ts runs as `npm start` does.
    SAMPLE_MAIN,
    CLI_MAIN,
  ];
  const options: ts.CompilerOptions = {
    ...parsed.options,
    rootDir: ROOT,
    outDir,
    noEmit: false,
    noCheck: true,
    declaration: false,
    declarationMap: false,
    sourceMap: true,
    incremental: false,
  };
  const result = ts.createProgram(roots, options).emit();
  const errors = result.diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  if (result.emitSkipped || errors.length) {
    const text = ts.formatDiagnostics(errors, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' });
    throw new Error(`child build: tsc emitted nothing into ${relative(ROOT, outDir)}\n${text}`);
  }
  buildDashboardScript(outDir);
  process.env[CHILD_BUILD_ENV] = outDir;
  return outDir;
}

/**
 * The dashboard's page script, where the built library reads it (lib/dashboard/assets/dashboard-script.ts looks
 * beside itself for `../browser/dashboard.browser.js`): one classic script of its own tsconfig, as `npm run build`
 * makes it, so a child that mounts the dashboard serves what the package serves.
 */
function buildDashboardScript(outDir: string): void {
  const configPath = join(ROOT, 'lib', 'dashboard', 'browser', 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error) throw new Error(`child build: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, dirname(configPath), undefined, configPath);
  const outFile = join(outDir, 'lib', 'dashboard', 'browser', 'dashboard.browser.js');
  const result = ts.createProgram(parsed.fileNames, { ...parsed.options, outFile, noCheck: true }).emit();
  if (result.emitSkipped) throw new Error(`child build: the dashboard's script was not emitted into ${relative(ROOT, outFile)}`);
}

/** Removes this run's build. */
export function removeChildBuild(): void {
  const outDir = process.env[CHILD_BUILD_ENV];
  if (outDir) rmSync(outDir, { recursive: true, force: true });
}

/**
 * The compiled file of `script` (a path from the repository root, `test/fixtures/queue-app.ts`) in this run's
 * build, or undefined when no build was made (a test run without the e2e project's global setup: ts-node then).
 */
export function compiledScript(script: string): string | undefined {
  const outDir = process.env[CHILD_BUILD_ENV];
  if (!outDir) return undefined;
  const compiled = join(outDir, script.replace(/\.ts$/, '.js'));
  if (!existsSync(compiled)) throw new Error(`${script} is not in this run's child build (${outDir}): children start from test/fixtures/`);
  return compiled;
}
