/**
 * Two projects. `unit` runs the pure unit specs (test/*.spec.ts) once: they touch no backend, or open a
 * node-sqlite3 file of their own. `e2e` runs the behavioural files (test/*.e2e-spec.ts) once each; every file
 * names the backends it runs on where its tests are written, through test/support/backends.ts
 * (`describeEachBackend`: node-sqlite3, better-sqlite3, and PostgreSQL when a server answers at
 * QUEUE_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test). Without a server the PostgreSQL
 * blocks are skipped and the run says so at its start and at its end; QUEUE_TEST_POSTGRES=off skips them on purpose.
 */
const { probePostgres, SKIP_NOTICE_ENV } = require('./test/support/probe-postgres');
const { QUICK_EXCLUDED } = require('./test/support/quick-excluded');
const { probeChromium, BROWSER_NOTICE_ENV } = require('./test/support/probe-chromium');

// QUEUE_TEST_CPU=<file>: each file's CPU time, with its child processes' (test/support/cpu-environment.js).
const testEnvironment = process.env.QUEUE_TEST_CPU ? '<rootDir>/test/support/cpu-environment.js' : 'node';

const common = {
  rootDir: __dirname,
  testEnvironment,
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
  // This run's child build (and other scratch files) live under .tmp/: writing them is no change to watch.
  watchPathIgnorePatterns: ['<rootDir>/.tmp/'],
};

const unit = { ...common, displayName: 'unit', testRegex: 'test/.*\\.spec\\.ts$' };

// The global setup compiles the child processes' scripts for this run (test/support/child-build.ts) and, when the
// server answered, names this run's PostgreSQL schemas; the teardown removes the build and drops the schemas.
const e2e = {
  ...common,
  displayName: 'e2e',
  testRegex: 'test/.*\\.e2e-spec\\.ts$',
  // `npm run test:quick` (QUEUE_TEST_QUICK=1) leaves out the process-, browser- and service-heavy files, each listed
  // with its reason in test/support/quick-excluded.js; `npm test` runs them all.
  testPathIgnorePatterns: [
    '/node_modules/',
    ...(process.env.QUEUE_TEST_QUICK === '1' ? QUICK_EXCLUDED.map(([file]) => `<rootDir>/${file}$`) : []),
  ],
  globalSetup: '<rootDir>/test/support/e2e-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/e2e-global-teardown.ts',
};

// The consumer test (test/consumer/*.consumer-spec.ts, which the pattern above does not match) runs once, in a project
// of its own: it packs the library and installs it into throwaway applications, whatever the backend projects are.
const consumer = {
  rootDir: __dirname,
  displayName: 'consumer',
  testEnvironment,
  testRegex: 'test/consumer/.*\\.consumer-spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: common.transform,
};

/** @returns {Promise<import('jest').Config>} */
module.exports = async () => {
  const skipped = await probePostgres();
  if (skipped && process.env.CI === 'true' && process.env.QUEUE_TEST_POSTGRES !== 'off') {
    // In CI a green run must mean every backend was tested: a server that does not answer fails the run.
    throw new Error(`${skipped}\n*** CI=true: refusing to run without PostgreSQL (QUEUE_TEST_POSTGRES=off skips it on purpose).`);
  }
  if (skipped) {
    process.env[SKIP_NOTICE_ENV] = skipped;
    process.stderr.write(`\n${skipped}\n\n`);
  }
  // Outside CI, a machine without Chromium leaves the dashboard's browser files out, and says so (see the file).
  const browser = probeChromium(__dirname);
  if (browser.notice) {
    process.env[BROWSER_NOTICE_ENV] = browser.notice;
    process.stderr.write(`\n${browser.notice}\n\n`);
    e2e.testPathIgnorePatterns.push(...browser.skip.map((file) => `<rootDir>/${file}$`));
  }
  return {
    testTimeout: 60000,
    // Every file owns its databases (a temp file, a PostgreSQL schema) and its ports, so files run side by side:
    // most of a behavioural file's time is waiting (leases, polls, child processes booting), which overlaps.
    maxWorkers: Number(process.env.QUEUE_TEST_WORKERS) || 3,
    reporters: ['default', '<rootDir>/test/support/slowest-files-reporter.js'],
    // Longest files first, also in a fresh clone (see the file).
    testSequencer: '<rootDir>/test/support/duration-sequencer.js',
    // Repeats the notice after the summary, where it cannot scroll away.
    globalTeardown: '<rootDir>/test/support/report-skipped-postgres.js',
    projects: [unit, e2e, consumer],
  };
};
