/**
 * The behavioural files `npm run test:quick` (QUEUE_TEST_QUICK=1) leaves out, each with why: the inner loop keeps
 * every file whose tests run in the test's own process on a SQLite file, and leaves to `npm test` the files whose
 * subject is other OS processes (kill -9, several processes on one database, a CLI process per command), a real
 * browser, an outside service, or a measured window of idle time. Every file here still runs in `npm test` and in CI;
 * a file joins this list only for one of these reasons, said next to it. Plain JavaScript: jest.config.js reads it.
 */
const QUICK_EXCLUDED = [
  ['test/cli.e2e-spec.ts', "the package's bin as OS processes, one for each exit code"],
  ['test/crash-recovery.e2e-spec.ts', 'kill -9 of worker processes in the middle of a backlog'],
  ['test/crash-recovery-poison.e2e-spec.ts', 'a poison job that kills the processes that claim it'],
  ['test/complete-in-crash.e2e-spec.ts', 'kill -9 of worker processes completing jobs in their own transactions'],
  ['test/dependencies-crash.e2e-spec.ts', 'kill -9 of worker processes running a graph of dependent jobs'],
  ['test/batch-handlers-crash.e2e-spec.ts', 'kill -9 of a worker process in the middle of a batch'],
  ['test/multi-process.e2e-spec.ts', 'several OS processes on one database'],
  ['test/queue-limits-processes.e2e-spec.ts', 'limits held across OS processes, one killed with -9'],
  ['test/groups-processes.e2e-spec.ts', 'group concurrency across OS processes'],
  ['test/flows-multi-process.e2e-spec.ts', 'a flow whose children finish in other OS processes'],
  ['test/flows-remove-processes.e2e-spec.ts', 'removal racing workers in other OS processes'],
  ['test/lease-heartbeat.e2e-spec.ts', 'heartbeats and lease expiry of stalled or killed processes'],
  ['test/locked-database.e2e-spec.ts', 'another process holding the database lock'],
  ['test/migration-lock-wait.e2e-spec.ts', 'processes racing the schema migration lock'],
  ['test/boot-locked-file.e2e-spec.ts', 'another process holding the write lock while the app boots'],
  ['test/events.e2e-spec.ts', 'events heard from other OS processes (most of its tests)'],
  ['test/prefetch.e2e-spec.ts', 'prefetch against workers in other OS processes (most of its tests)'],
  ['test/throttle-debounce.e2e-spec.ts', 'throttle and debounce windows shared by OS processes (half its tests)'],
  ['test/telemetry.e2e-spec.ts', 'one trace across an OS process boundary (its heaviest tests)'],
  ['test/sample-app.e2e-spec.ts', 'the sample application booted as its own process'],
  ['test/postgres-multi-node.e2e-spec.ts', 'PostgreSQL only: nodes as OS processes'],
  ['test/postgres-connection-kill.e2e-spec.ts', 'PostgreSQL only: backends killed under a worker'],
  ['test/dashboard.e2e-spec.ts', 'the dashboard in a real Chromium'],
  ['test/dashboard-inspect.e2e-spec.ts', 'the dashboard in a real Chromium'],
  ['test/dashboard-operator.e2e-spec.ts', 'the dashboard in a real Chromium'],
  ['test/migration-guide.e2e-spec.ts', 'BullMQ on Redis, an outside service'],
  ['test/idle-cost.e2e-spec.ts', 'statements counted over measured windows of idle time'],
];

module.exports = { QUICK_EXCLUDED };
