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

/** A crash-recovery file's helpers, bound to the describe block that called `crashWorkers`. */
export interface CrashWorkers {
  readonly current: PerTestApp;
  /** A producing / inspecting app in the test process: it claims nothing. */
  openObserver(): Promise<{ producer: QueueProducer; admin: QueueAdmin }>;
  /** Starts a worker process on the test's database; killed (-9) after the test. */
  startWorker(config: Omit<QueueAppConfig, 'connection'>): ChildApp;
  /** Loads a worker process that boots on `boot()` (see `startStandbyChildApp`); killed (-9) after the test. */
  startStandbyWorker(config: Omit<QueueAppConfig, 'connection'>): StandbyChildApp;
  /**
   * Runs a worker until it dies (its exit code or signal) or `settled` holds (then stops it gracefully: null).
   * The wait starts once the worker is up: its boot takes seconds (more on a loaded machine), and no lease or
   * recovery bound covers that. It ends with the worker, so no poll outlives its run. Each run also loads the
   * next run's process (a standby of the same config), which is then up in a moment instead of a whole start.
   */
  runWorkerUntil(
    config: Omit<QueueAppConfig, 'connection'>,
    settled: () => Promise<boolean>,
    what: string,
  ): Promise<number | string | null>;
}

/** Registers, in the calling describe block, the hooks of a crash-recovery file and returns its helpers. */
export function crashWorkers(backend: Backend): CrashWorkers {
  let app: TestingModule | undefined;
  let children: ChildApp[] = [];

  /** The process the next `runWorkerUntil` of the same config boots: loaded while the current one runs. */
  let spare: { config: string; child: StandbyChildApp } | undefined;

  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
    spare = undefined;
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);

  async function openObserver(): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    app = await current.startApp({ module: { processing: false } });
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  function startWorker(config: Omit<QueueAppConfig, 'connection'>): ChildApp {
    const child = startChildApp({ connection: current.db.options, ...config });
    children.push(child);
    return child;
  }

  function startStandbyWorker(config: Omit<QueueAppConfig, 'connection'>): StandbyChildApp {
    const child = startStandbyChildApp({ connection: current.db.options, ...config });
    children.push(child);
    return child;
  }

  async function runWorkerUntil(
    config: Omit<QueueAppConfig, 'connection'>,
    settled: () => Promise<boolean>,
    what: string,
  ): Promise<number | string | null> {
    const key = JSON.stringify(config);
    // A spare of another config is left to the after-test kill.
    const child = spare?.config === key ? spare.child : startStandbyWorker(config);
    spare = { config: key, child: startStandbyWorker(config) };
    return bootAndRunUntil(child, settled, what);
  }

  return { current, openObserver, startWorker, startStandbyWorker, runWorkerUntil };
}

/**
 * Boots a standby worker and lets it run until `settled()` holds (then stops it cleanly: null) or it dies first (its
 * exit code or signal): the kill -9 scenarios' one step.
 */
export async function bootAndRunUntil(
  child: StandbyChildApp,
  settled: () => Promise<boolean>,
  what: string,
): Promise<number | string | null> {
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
