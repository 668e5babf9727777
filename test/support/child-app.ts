import { ChildProcess, spawn } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { QueueAppConfig } from '../fixtures/queue-app';
import { compiledScript, mapChildStack } from './child-build';

const ROOT = join(__dirname, '..', '..');

/** A running child process started from a TypeScript script (an app or a helper script). */
export interface ChildApp {
  readonly process: ChildProcess;
  /** Resolves when the child printed `line` (READY, PRODUCED, LOCKED...) as a whole line. */
  printed(line: string): Promise<void>;
  /** Resolves with the exit code (or signal name) when the child exits. */
  readonly exited: Promise<number | string>;
  /** Everything the child wrote to stdout so far. */
  stdout(): string;
  /** Everything the child wrote to stderr so far, its stack traces mapped to the TypeScript lines. */
  stderr(): string;
  /** Graceful: SIGTERM (the app closes), then wait for exit. */
  stop(): Promise<number | string>;
  /** kill -9, then wait for exit. */
  kill(): Promise<number | string>;
}

/** Starts a Nest application (test/fixtures/queue-app.ts) in a new OS process, on the database `config.connection` names. */
export function startChildApp(config: QueueAppConfig): ChildApp {
  return startScript('test/fixtures/queue-app.ts', [JSON.stringify(config)]);
}

/** A child app loaded but not booted yet (`standby`): `boot()` lets it boot, as `startChildApp` would have. */
export interface StandbyChildApp extends ChildApp {
  /** Waits until the child is loaded (STANDBY), then tells it to boot (SIGUSR2); it prints READY once booted. */
  boot(): Promise<void>;
}

/**
 * Starts a child app that loads the library and Nest (most of a start, seconds on a loaded machine) and then waits
 * for `boot()`: a test that needs one process after another starts the next while the current one runs.
 */
export function startStandbyChildApp(config: QueueAppConfig): StandbyChildApp {
  const child = startChildApp({ ...config, standby: true });
  return {
    ...child,
    boot: async () => {
      await child.printed('STANDBY');
      // Before STANDBY the child has no handler for SIGUSR2, whose default is to end it.
      child.process.kill('SIGUSR2');
    },
  };
}

/**
 * Starts test/fixtures/hold-write-lock.ts: a plain node-sqlite3 connection that takes the write lock
 * (`BEGIN IMMEDIATE`), prints `LOCKED`, holds it `holdMs`, prints `RELEASING <epoch ms>` just before COMMIT,
 * then `RELEASED`, and exits 0.
 */
export function startLockHolder(database: string, holdMs: number): ChildApp {
  return startScript('test/fixtures/hold-write-lock.ts', [database, String(holdMs)]);
}

/**
 * The arguments of `node` that run a TypeScript file of this repository (under test/fixtures/): its JavaScript from
 * this run's child build (test/support/child-build.ts); through ts-node when the run made no build. No
 * `--enable-source-maps` (a quarter of a child's start): the stacks a test shows go through `mapChildStack`.
 */
export function scriptArgs(script: string): string[] {
  const compiled = compiledScript(script);
  return compiled ? [compiled] : ['-r', 'ts-node/register/transpile-only', join(ROOT, script)];
}

/** Runs a TypeScript file of this repository (under test/fixtures/) in a new OS process (see `scriptArgs`), with `env` added to this one's. */
export function startScript(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildApp {
  const child = spawn(process.execPath, [...scriptArgs(script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env, TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const listeners: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    listeners.forEach((check) => check());
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    process: child,
    printed: (line) =>
      new Promise<void>((resolve, reject) => {
        const check = () => stdout.split('\n').includes(line) && resolve();
        listeners.push(check);
        check();
        void exited.then((code) => {
          // Output may still be in the pipe when 'exit' fires; give it the chance to arrive.
          setImmediate(() => {
            check();
            reject(new Error(`child exited (${code}) before printing ${line}; stderr:\n${mapChildStack(stderr)}`));
          });
        });
      }),
    exited,
    stdout: () => stdout,
    stderr: () => mapChildStack(stderr),
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: () => {
      child.kill('SIGKILL');
      return exited;
    },
  };
}

/** One handler start as logged by the child apps: queue, job id, attempt, pid. */
export interface RunLogEntry {
  queue: string;
  id: string;
  attempt: number;
  pid: number;
}

/** Reads a run log written by child apps (or by in-process test processors using the same format). */
export function readRunLog(path: string): RunLogEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [queue, id, attempt, pid] = line.split(' ');
      return { queue, id, attempt: Number(attempt), pid: Number(pid) };
    });
}

/** The non-empty lines of a file (an id log), or [] when it does not exist yet. */
export function readLines(path: string): string[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}
