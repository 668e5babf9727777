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
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/** The source maps of this run's build read so far (null: the file has none), by compiled file. */
const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapOf(compiled: string): SourceMap | null {
  if (!sourceMaps.has(compiled)) {
    let map: SourceMap | null = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${compiled}.map`, 'utf8')));
    } catch {
      // No map beside it (or not readable): the frame stays as it is.
    }
    sourceMaps.set(compiled, map);
  }
  return sourceMaps.get(compiled) ?? null;
}

/**
 * `text` (a child's stderr, a stack it printed) with every position in this run's build turned into its TypeScript
 * file, line and column. Children run without `--enable-source-maps`: with it, node reads and parses the map of
 * every module it loads that names one (the library's and TypeORM's), about a quarter more CPU on every child's
 * start (complete-in-app to READY: 1.2-1.27 s against 0.91-1.1 s). The few stacks anyone reads are mapped here
 * instead, when a test shows them.
 */
export function mapChildStack(text: string): string {
  const outDir = process.env[CHILD_BUILD_ENV];
  if (!outDir || !text.includes(outDir)) return text;
  const escaped = (outDir + sep).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(new RegExp(`${escaped}[^\\s():]+\\.js:(\\d+):(\\d+)`, 'g'), (frame, line: string, column: string) => {
    const compiled = frame.slice(0, frame.length - line.length - column.length - 2);
    const entry = sourceMapOf(compiled)?.findEntry(Number(line) - 1, Number(column) - 1);
    if (!entry || !('originalSource' in entry)) return frame;
    const source = resolve(dirname(compiled), entry.originalSource.replace(/^file:\/\//, ''));
    return `${relative(ROOT, source)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
