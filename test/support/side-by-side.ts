/**
 * Tests that run side by side across the backends of a run, for tests that mostly wait (a throttle window, a debounce
 * delay, announcement periods, processes loading): the waits of the backends overlap instead of adding up.
 *
 * jest runs the `it.concurrent` tests of one describe block together, and runs no beforeEach/afterEach for them, so
 * `describeEachBackend` (a block per backend) cannot overlap them and `perTestApp` (hooks) cannot serve them:
 * `itEachBackendConcurrently` registers one concurrent test per backend in the calling block, and `withTestApps` gives
 * each test a migrated database of its own and closes the apps it starts, however the test ends.
 */
import { TestingModule } from '@nestjs/testing';
import { AppSpec, Backend, TestDatabase, availableBackends, closeApp, compileTestApp } from './backends';

/** What `withTestApps` hands its body: the test's database and the one app helper. */
export interface TestApps {
  /** The test's database, already at the newest schema (the test is not about migrations). */
  readonly db: TestDatabase;
  /**
   * Compiles and initialises an app on the test's database: `SqliteQueueModule.forRoot({ ...db.options, ...spec.module })`
   * plus `spec.imports` and `spec.providers`, as `perTestApp().startApp` does. Closed when the body ends.
   */
  startApp(spec?: Omit<AppSpec, 'replaceImports'>): Promise<TestingModule>;
}

/** Runs `body` on a migrated database of `backend` of its own, then closes every app it started and removes the database. */
export async function withTestApps<T>(backend: Backend, body: (apps: TestApps) => Promise<T>): Promise<T> {
  const db = await backend.migratedDatabase();
  const apps: TestingModule[] = [];
  const startApp: TestApps['startApp'] = async (spec = {}) => {
    const app = await compileTestApp(db, spec);
    // Tracked before init(): an app whose boot failed still holds what it opened.
    apps.push(app);
    await app.init();
    return app;
  };
  try {
    return await body({ db, startApp });
  } finally {
    for (const app of apps.reverse()) await closeApp(app);
    db.cleanup();
  }
}

/**
 * `it.concurrent` once per backend of this run, named `[backend] name`, in the calling describe block: every test the
 * block registers this way runs beside the others (at most jest's `maxConcurrency`, 5, at once). Nest's logger is one
 * per process (`setLogger` replaces it for every app), so a test that reads what its app logs needs a logger that tells
 * the tests apart (see test/unprocessed-queues.e2e-spec.ts).
 */
export function itEachBackendConcurrently(name: string, body: (backend: Backend) => Promise<void>, timeout?: number): void {
  const backends = availableBackends();
  // A describe block with no test fails the file; say instead that this run has no backend for it.
  if (backends.length === 0) it.skip(`${name} (no backend in this run)`, () => undefined);
  for (const backend of backends) it.concurrent(`[${backend.name}] ${name}`, () => body(backend), timeout);
}
