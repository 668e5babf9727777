/**
 * Three projects run the same test files: `sqlite` (the default backend and driver), `better-sqlite3` (the same
 * tests with driver: 'better-sqlite3') and `postgres` (the same tests against PostgreSQL:
 * test/support/postgres-backend.setup.ts maps each test's SQLite file to a schema of its own).
 * Files named test/postgres-*.ts are PostgreSQL-only. The postgres project runs when a server answers at
 * QUEUE_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test); otherwise it is skipped, and
 * the run says so at its start and at its end. QUEUE_TEST_POSTGRES=off skips it on purpose.
 */
const { probePostgres, SKIP_NOTICE_ENV } = require('./test/support/probe-postgres');

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  testRegex: 'test/.*\\.(spec|e2e-spec)\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
};

const sqlite = {
  ...common,
  displayName: 'sqlite',
  testPathIgnorePatterns: ['/node_modules/', '/test/postgres-[^/]*$'],
  setupFiles: ['<rootDir>/test/support/sqlite-backend.setup.ts'],
};

// The same files again with driver: 'better-sqlite3' (the setup adds it to every app that names a SQLite file).
const betterSqlite3 = {
  ...sqlite,
  displayName: 'better-sqlite3',
  setupFiles: ['<rootDir>/test/support/sqlite-backend.setup.ts', '<rootDir>/test/support/better-sqlite3-driver.setup.ts'],
};

const postgres = {
  ...common,
  displayName: 'postgres',
  setupFiles: ['<rootDir>/test/support/postgres-backend.setup.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/postgres-backend.after-env.ts'],
  globalSetup: '<rootDir>/test/support/postgres-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/postgres-global-teardown.ts',
};

// The consumer test (test/consumer/*.consumer-spec.ts, which the pattern above does not match) runs once, in a project
// of its own: it packs the library and installs it into throwaway applications, whatever the backend projects are.
const consumer = {
  rootDir: __dirname,
  displayName: 'consumer',
  testEnvironment: 'node',
  testRegex: 'test/consumer/.*\\.consumer-spec\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: common.transform,
};

/** @returns {Promise<import('jest').Config>} */
module.exports = async () => {
  const skipped = await probePostgres();
  if (skipped) {
    process.env[SKIP_NOTICE_ENV] = skipped;
    process.stderr.write(`\n${skipped}\n\n`);
  }
  return {
    testTimeout: 60000,
    // Repeats the notice after the summary, where it cannot scroll away.
    globalTeardown: '<rootDir>/test/support/report-skipped-postgres.js',
    projects: skipped ? [sqlite, betterSqlite3, consumer] : [sqlite, betterSqlite3, postgres, consumer],
  };
};
