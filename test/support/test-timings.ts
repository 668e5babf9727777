/**
 * The suite's short timings, passed as module options like any application's tests would (docs/testing.md): the
 * library reads no test-runner state, and its production defaults would make the suite wait for nothing.
 */
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import type { Backend } from './backends';

/**
 * `shutdownTimeout` of every test app (set by `backend.tempDatabase().options`): `app.close()` in an `afterEach` ends
 * within jest's default 5 s hook timeout even when a job still runs (it is aborted and handed back, attempt uncounted).
 */
export const TEST_SHUTDOWN_TIMEOUT = 2000;

/**
 * How much later than its claim a job's handler may get it, at most, in the tests that read limits from started times:
 * rate windows and concurrency bounds count claims, and `startedAt` is the handler's start (the claim writes none), a
 * few ms after, and up to about 80 ms on a loaded 2-core machine (a full run beside other work measured 76). Window
 * checks on started times allow this much; a missing limit would start every job within a few ms, far inside it.
 */
export const CLAIM_TO_START_MS = 100;

/**
 * How much later than its claim the first job of a fresh app may start, in the checks of a span from the first start
 * to a later one (windows spaced out by a limiter): its handler's first run is the coldest of the test, and a CI run
 * beside lint and tsc measured over 121 ms on PostgreSQL. Without a limiter every start of those tests falls within a
 * few ms of the first, so the spans still show the windows.
 */
export const FIRST_START_SLACK_MS = 2 * CLAIM_TO_START_MS;

/** SQLite busy timeout of the tests that wait for leases: short, so the short lease below is legal. */
export const SHORT_BUSY_TIMEOUT = 500;

/** Fallback poll of those tests. */
export const SHORT_POLL_INTERVAL = 100;

/**
 * Lease of those tests: the shortest SQLite accepts with the two above (500 + 1000 + min(100, 750) ms), used on
 * PostgreSQL too (which has no minimum), so each backend waits the same for a dead process's jobs.
 */
export const SHORT_LEASE = 1600;

/** The module options of a test that waits for leases (a crash, a stall, a heartbeat): spread them into `module`. */
export function shortLeases(
  backend: Pick<Backend, 'kind'>,
): Required<Pick<SqliteQueueModuleOptions, 'leaseDuration' | 'pollInterval'>> & Pick<SqliteQueueModuleOptions, 'busyTimeout'> {
  // busyTimeout is a SQLite setting: PostgreSQL refuses it.
  const busy = backend.kind === 'sqlite' ? { busyTimeout: SHORT_BUSY_TIMEOUT } : {};
  return { leaseDuration: SHORT_LEASE, pollInterval: SHORT_POLL_INTERVAL, ...busy };
}
