/**
 * One test's processes with everything it opens in its own hands, for tests that run side by side
 * (`it.concurrent`, which runs no beforeEach/afterEach): its database, an observer app in the test process that
 * claims nothing, and worker processes (test/fixtures/queue-app.ts) on that database, all closed when the body
 * ends, however it ends. A test of processes spends most of its time waiting (leases running out, recovery and
 * its jitter, processes loading), so two such tests overlap their waits instead of adding them.
 *
 * `runWorkerUntil` is the loop of test/support/crash-workers.ts (which the describe-block files use, with hooks):
 * a worker runs until it dies or the test's condition holds, while the next one loads as a standby.
 */
import { Test, TestingModule } from '@nestjs/testing';
import { QueueAdmin, QueueProducer, SqliteQueueModule } from '../../lib';
import type { QueueAppConfig } from '../fixtures/queue-app';
import { Backend, TestDatabase, closeApp } from './backends';
import { ChildApp, StandbyChildApp, startChildApp, startStandbyChildApp } from './child-app';
import { bootAndRunUntil } from './crash-workers';

/** What a scenario's body is given. */
export interface ProcessScenario {
  /** The scenario's database (migrated: the scenario is not about migrations). */
  readonly db: TestDatabase;
  /** The observer app's producer and admin (it claims nothing). */
  readonly producer: QueueProducer;
  readonly admin: QueueAdmin;
  /** Starts a worker process on the scenario's database. */
  startWorker(config: Omit<QueueAppConfig, 'connection'>): ChildApp;
  /** Loads a worker process that boots on `boot()` (see `startStandbyChildApp`). */
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

/** Runs `body` on a scenario of `backend` of its own, then kills its workers, closes its app and removes its database. */
export async function withProcessScenario<T>(backend: Backend, body: (scenario: ProcessScenario) => Promise<T>): Promise<T> {
  const db = await backend.migratedDatabase();
  const children: ChildApp[] = [];
  let app: TestingModule | undefined;
  try {
    app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRoot({ ...db.options, processing: false })] }).compile();
    await app.init();
    /** The process the next `runWorkerUntil` of the same config boots: loaded while the current one runs. */
    let spare: { config: string; child: StandbyChildApp } | undefined;
    const startWorker = (config: Omit<QueueAppConfig, 'connection'>): ChildApp => {
      const child = startChildApp({ connection: db.options, ...config });
      children.push(child);
      return child;
    };
    const startStandbyWorker = (config: Omit<QueueAppConfig, 'connection'>): StandbyChildApp => {
      const child = startStandbyChildApp({ connection: db.options, ...config });
      children.push(child);
      return child;
    };
    const runWorkerUntil: ProcessScenario['runWorkerUntil'] = async (config, settled, what) => {
      const key = JSON.stringify(config);
      // A spare of another config is left to the kill at the end.
      const child = spare?.config === key ? spare.child : startStandbyWorker(config);
      spare = { config: key, child: startStandbyWorker(config) };
      return bootAndRunUntil(child, settled, what);
    };
    const scenario = { db, producer: app.get(QueueProducer), admin: app.get(QueueAdmin), startWorker, startStandbyWorker, runWorkerUntil };
    return await body(scenario);
  } finally {
    // The workers first, as crash-workers.ts does: a test that failed must not leave processes behind.
    await Promise.all(children.map((child) => child.kill()));
    if (app) await closeApp(app);
    db.cleanup();
  }
}
