'use strict';
// Which of the library's PostgreSQL row writes can be HOT updates (a new row version on the same page, no index
// entries), measured rather than read off the schema: a fresh schema of this build (dist/, every migration step), 1,000
// running jobs on pages with room (fillfactor 30, so a HOT update never fails for want of space), then each kind of
// write applied to every row in a transaction that is rolled back, with the server's own counters of that transaction
// (pg_stat_get_xact_tuples_updated / _hot_updated). A column that is in an index's keys or predicate (any index, even a
// partial one the row is not in) makes every update that changes it a non-HOT one: a new version elsewhere, and an
// entry in every index whose predicate the new version matches.
//
//   npm run build && node bench/pg-hot-updates.js        (PostgreSQL on 127.0.0.1:5432, database queue_bench)
const path = require('node:path');
const { PG_URL, ensureBenchDatabase, withClient } = require('./lib/postgres');

const { getMigrations } = require(path.join(__dirname, '..', 'dist'));
const SCHEMA = 'bench_hot_updates';
const ROWS = 1000;

/** Each write, as the columns it changes on a running job. */
const WRITES = [
  ['a start written (markStarted: started_at)', 'started_at = 5'],
  ['a batch size written (markStarted: run_batch)', 'run_batch = 5'],
  ['a lease renewed (lease_until)', 'lease_until = 100'],
  ['progress reported (progress)', "progress = '1'"],
  ['a job log line (logs)', "logs = '[]'"],
];

async function main() {
  await ensureBenchDatabase();
  await withClient(PG_URL, async (client) => {
    const T = `${SCHEMA}.nest_queue_jobs`;
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    for (const step of getMigrations('postgres', { schema: SCHEMA })) for (const statement of step.sql) await client.query(statement);
    await client.query(`ALTER TABLE ${T} SET (fillfactor = 30)`);
    await client.query(
      `INSERT INTO ${T} (queue, status, data, run_at, max_attempts, created_at, updated_at, attempts, locked_by, lease_until)
       SELECT 'a', 'running', '{}', 1, 3, 1, 1, 1, 'w', 99 FROM generate_series(1, ${ROWS})`,
    );
    console.log(`${ROWS} running jobs, fillfactor 30; each write applied to all of them, then rolled back\n`);
    console.log('| write | rows updated | of which HOT |');
    console.log('|---|---|---|');
    for (const [label, set] of WRITES) {
      await client.query('BEGIN');
      const counts = async () =>
        (
          await client.query(
            `SELECT pg_stat_get_xact_tuples_updated($1::regclass)::int AS updated, pg_stat_get_xact_tuples_hot_updated($1::regclass)::int AS hot`,
            [T],
          )
        ).rows[0];
      const before = await counts();
      await client.query(`UPDATE ${T} SET ${set} WHERE status = 'running'`);
      const after = await counts();
      await client.query('ROLLBACK');
      console.log(`| ${label} | ${after.updated - before.updated} | ${after.hot - before.hot} |`);
    }
    await client.query(`DROP SCHEMA ${SCHEMA} CASCADE`);
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
