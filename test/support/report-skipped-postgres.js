/**
 * Jest globalTeardown: repeats, after the summary, that the PostgreSQL suite did not run (see probe-postgres.js), or
 * the dashboard's browser files (see probe-chromium.js).
 */
const { SKIP_NOTICE_ENV } = require('./probe-postgres');
const { BROWSER_NOTICE_ENV } = require('./probe-chromium');

module.exports = async function reportSkippedPostgres() {
  for (const name of [SKIP_NOTICE_ENV, BROWSER_NOTICE_ENV]) {
    const notice = process.env[name];
    if (notice) process.stderr.write(`\n${notice}\n`);
  }
};
