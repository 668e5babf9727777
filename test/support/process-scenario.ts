/**
 * One test's processes with everything it opens in its own hands, for tests that run side by side
 * (`it.concurrent`, which runs no beforeEach/afterEach): its database, an observer app in the test process that
 * claims nothing, and worker processes (test/fixtures/queue-app.ts) on that database, all closed when the body
 * ends, however it ends. A test of processes spends most of its time waiting (leases running out, recovery and
 * its jitter, processes loading), so two such tests overlap their waits instead of adding them.
 *
 * `runWorkerUntil` is the loop of test/support/crash-workers.ts (which the describe-block files use, with hooks):
 * a worker runs until it dies or the test's condition holds, while the next one loads as a standby.
 *
 * `itConcurrentlyOnEachBackend` registers such a test once per backend in one describe block, so the scenarios of
 * every backend overlap their waits too, not only the tests of one backend.
 */
import { QueueAdmin, QueueProducer } from '../../lib';
import { Backend, TestDatabase } from './backends';
import { WorkerProcesses, workerProcesses } from './crash-workers';
import { itEachBackendConcurrently, withTestApps } from './side-by-side';

/** What a scenario's body is given. */
export interface ProcessScenario extends WorkerProcesses {
  /** The scenario's database (migrated: the scenario is not about migrations). */
  readonly db: TestDatabase;
  /** The observer app's producer and admin (it claims nothing). */
  readonly producer: QueueProducer;
  readonly admin: QueueAdmin;
}

/** Runs `body` on a scenario of `backend` of its own, then kills its workers, closes its app and removes its database. */
export async function withProcessScenario<T>(backend: Backend, body: (scenario: ProcessScenario) => Promise<T>): Promise<T> {
  return withTestApps(backend, async ({ db, startApp }) => {
    const workers = workerProcesses(() => db.options);
    try {
      const app = await startApp({ module: { processing: false } });
      const { startWorker, startStandbyWorker, runWorkerUntil } = workers;
      return await body({
        db,
        producer: app.get(QueueProducer),
        admin: app.get(QueueAdmin),
        startWorker,
        startStandbyWorker,
        runWorkerUntil,
      });
    } finally {
      // The workers first, as crash-workers.ts does (withTestApps then closes the app): a test that failed must not
      // leave processes behind.
      await workers.killAll();
    }
  });
}

/**
 * `it.concurrent('[backend] name')` once per backend of this run, each test a `withProcessScenario` of its own
 * backend, in the calling describe block. Jest starts the concurrent tests of one describe block together (at most
 * its `maxConcurrency`, 5, at once; the next starts when one ends) but runs describe blocks one after another, so
 * `describeEachBackend` would wait for one backend's scenarios before starting the next backend's: here they all
 * wait for their leases and processes at the same time. `timeout` is each test's.
 */
export function itConcurrentlyOnEachBackend(
  name: string,
  body: (scenario: ProcessScenario, backend: Backend) => Promise<void>,
  timeout: number,
): void {
  itEachBackendConcurrently(name, (backend) => withProcessScenario(backend, (scenario) => body(scenario, backend)), timeout);
}
