/**
 * What the crash-recovery files share: worker processes started from test/fixtures/queue-app.ts on the test's
 * database (killed after each test), an observer app in the test process that claims nothing, and a loop helper
 * that runs a worker until it dies or the test's condition holds.
 */
import { TestingModule } from '@nestjs/testing';
import { QueueAdmin, QueueProducer } from '../../lib';
import type { QueueAppConfig } from '../fixtures/queue-app';
import { ChildApp, StandbyChildApp, startChildApp, startStandbyChildApp } from './child-app';
import { waitFor } from './wait-for';
import { Backend, PerTestApp, perTestApp } from './backends';

/** Worker processes (test/fixtures/queue-app.ts) on one test's database, each tracked for the kill at the end. */
export interface WorkerProcesses {
  /** Starts a worker process on the test's database; killed (-9) at the end. */
  startWorker(config: Omit<QueueAppConfig, 'connection'>): ChildApp;
  /** Loads a worker process that boots on `boot()` (see `startStandbyChildApp`); killed (-9) at the end. */
  startStandbyWorker(config: Omit<QueueAppConfig, 'connection'>): StandbyChildApp;
  /**
   * Runs a worker until it dies (its exit code or signal) or `settled` holds (then stops it gracefully: null).
   * The wait starts once the worker is up: its boot takes seconds (more on a loaded machine), and no lease or
   * recovery bound covers that. It ends with the worker, so no poll outlives its run. Each run also loads the
   * next run's process (a standby of the same config), which is then up in a moment instead of a whole start;
   * `last` says that no run follows, so no process loads for nothing (a load is over a second of CPU).
   */
  runWorkerUntil(
    config: Omit<QueueAppConfig, 'connection'>,
    settled: () => Promise<boolean>,
    what: string,
    options?: { last?: boolean },
  ): Promise<number | string | null>;
}

/**
 * The worker processes of one test on the database `connection()` names (read at each start), and `killAll`, which
 * kills every one started (spares included) and starts afresh: what a test must do however it ends.
 */
export function workerProcesses(connection: () => QueueAppConfig['connection']): WorkerProcesses & { killAll(): Promise<void> } {
  let children: ChildApp[] = [];
  /** The process the next `runWorkerUntil` of the same config boots: loaded while the current one runs. */
  let spare: { config: string; child: StandbyChildApp } | undefined;

  const startWorker = (config: Omit<QueueAppConfig, 'connection'>): ChildApp => {
    const child = startChildApp({ connection: connection(), ...config });
    children.push(child);
    return child;
  };
  const startStandbyWorker = (config: Omit<QueueAppConfig, 'connection'>): StandbyChildApp => {
    const child = startStandbyChildApp({ connection: connection(), ...config });
    children.push(child);
    return child;
  };
  const runWorkerUntil: WorkerProcesses['runWorkerUntil'] = async (config, settled, what, { last = false } = {}) => {
    const key = JSON.stringify(config);
    // A spare of another config is left to the kill at the end.
    const child = spare?.config === key ? spare.child : startStandbyWorker(config);
    spare = last ? undefined : { config: key, child: startStandbyWorker(config) };
    return bootAndRunUntil(child, settled, what);
  };
  const killAll = async (): Promise<void> => {
    const started = children;
    children = [];
    spare = undefined;
    await Promise.all(started.map((child) => child.kill()));
  };
  return { startWorker, startStandbyWorker, runWorkerUntil, killAll };
}

/** A crash-recovery file's helpers, bound to the describe block that called `crashWorkers`. */
export interface CrashWorkers extends WorkerProcesses {
  readonly current: PerTestApp;
  /** A producing / inspecting app in the test process: it claims nothing. */
  openObserver(): Promise<{ producer: QueueProducer; admin: QueueAdmin }>;
}

/** Registers, in the calling describe block, the hooks of a crash-recovery file and returns its helpers. */
export function crashWorkers(backend: Backend): CrashWorkers {
  let app: TestingModule | undefined;
  // `current` is declared below: its database is read when a worker starts, inside a test.
  const workers = workerProcesses(() => current.db.options);

  afterEach(async () => {
    await workers.killAll();
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);

  async function openObserver(): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    app = await current.startApp({ module: { processing: false } });
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  const { startWorker, startStandbyWorker, runWorkerUntil } = workers;
  return { current, openObserver, startWorker, startStandbyWorker, runWorkerUntil };
}

/**
 * Boots a standby worker and lets it run until `settled()` holds (then stops it cleanly: null) or it dies first (its
 * exit code or signal): the kill -9 scenarios' one step.
 */
async function bootAndRunUntil(child: StandbyChildApp, settled: () => Promise<boolean>, what: string): Promise<number | string | null> {
  let dead = false;
  const exited = child.exited.then((code) => ((dead = true), code));
  const outcome = await Promise.race([
    exited,
    // A worker that dies before it prints READY rejects this, after `exited` has won.
    child
      .boot()
      .then(() => child.printed('READY'))
      .then(() => waitFor(async () => dead || (await settled()), what, 60_000, 50))
      .then(() => null),
  ]);
  if (outcome === null) expect(await child.stop()).toBe(0);
  return outcome;
}
