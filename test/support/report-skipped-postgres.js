/** Jest globalTeardown: repeats, after the summary, that the PostgreSQL suite did not run (see probe-postgres.js). */
const { SKIP_NOTICE_ENV } = require('./probe-postgres');

module.exports = async function reportSkippedPostgres() {
  const notice = process.env[SKIP_NOTICE_ENV];
  if (notice) process.stderr.write(`\n${notice}\n`);
};
