/**
 * Decides, for jest.config.js, whether the PostgreSQL project can run: returns null when a server answers,
 * else the notice to print. Plain JavaScript: the jest config loads it before any transform exists.
 */
const SKIP_NOTICE_ENV = 'QUEUE_TEST_POSTGRES_SKIPPED';

function testUrl() {
  return process.env.QUEUE_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';
}

function notice(reason) {
  return (
    '*** PostgreSQL test suite SKIPPED: ' +
    reason +
    '. Only the SQLite backend was tested.\n' +
    '*** To run it, start PostgreSQL (trust auth) at ' +
    testUrl().replace(/\/\/[^@/]*@/, '//') +
    ' or set QUEUE_TEST_POSTGRES_URL.'
  );
}

/** @returns {Promise<string | null>} */
async function probePostgres() {
  if (process.env.QUEUE_TEST_POSTGRES === 'off') return notice('QUEUE_TEST_POSTGRES=off');
  let Client;
  try {
    ({ Client } = require('pg'));
  } catch {
    return notice("the 'pg' package is not installed");
  }
  const client = new Client({ connectionString: testUrl(), connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return notice(
      'no server at ' + testUrl().replace(/\/\/[^@/]*@/, '//') + ' (' + (error && error.message ? error.message : String(error)) + ')',
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

module.exports = { probePostgres, SKIP_NOTICE_ENV };
