'use strict';
// The SQLite completion statement of single-job handlers, two builds side by side on one file: the time of
// COMPLETE_MANY_SQL over batches of running rows whose items carry no batch size (what a single-job handler's
// completions send; SCS_STATEMENT names another export of the newer build's outcomes.sql to time instead), the two builds' statements alternating batch by batch (their order swapped each round), so a noisy
// spell hits both alike. Only the statement is timed (better-sqlite3, synchronous): not the claim that sets the rows
// running, nor the library around it. The schema is the newer build's (both builds read the same columns).
//
//   npm run build && flock /work/test.lock env SCS_BASE_DIST=/path/to/old/dist node bench/single-completion-statement.js
//   SCS_ROUNDS=300 SCS_BATCH=100 ...
const path = require('node:path');
const { freshDbFile, median, removeDb } = require('./lib/common');

const ROUNDS = Number(process.env.SCS_ROUNDS ?? 300);
const BATCH = Number(process.env.SCS_BATCH ?? 100);
const NEW_DIST = path.resolve(process.env.BENCH_DIST_DIR ?? path.join(__dirname, '..', 'dist'));
const BASE_DIST = process.env.SCS_BASE_DIST && path.resolve(process.env.SCS_BASE_DIST);
const WORKER = 'bench-worker';

async function main() {
  if (!BASE_DIST) throw new Error('SCS_BASE_DIST: a build to compare with');
  const file = freshDbFile(`single-completion-${process.pid}.sqlite`);
  const { startLibraryApp } = require('./lib/library-app');
  // No processor: the jobs stay pending until this script sets them running.
  const { producer, close } = await startLibraryApp({ options: { database: file, driver: 'better-sqlite3' } });
  const total = ROUNDS * BATCH * 2;
  for (let added = 0; added < total; added += 1000) {
    await producer.addBulk(
      'q',
      Array.from({ length: Math.min(1000, total - added) }, (_, n) => ({ data: { n } })),
    );
  }
  await close();
  const { JOBS_TABLE } = require(path.join(NEW_DIST, 'table-names.constants'));
  const statements = {
    base: require(path.join(BASE_DIST, 'storage/sqlite/sql/outcomes.sql')).COMPLETE_MANY_SQL,
    new: require(path.join(NEW_DIST, 'storage/sqlite/sql/outcomes.sql'))[process.env.SCS_STATEMENT ?? 'COMPLETE_MANY_SQL'],
  };
  const Database = require('better-sqlite3');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const take = db.prepare(
    `UPDATE ${JOBS_TABLE} SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ?
     WHERE id IN (SELECT id FROM ${JOBS_TABLE} WHERE status = 'pending' ORDER BY id LIMIT ?) RETURNING id, attempts`,
  );
  const prepared = { base: db.prepare(statements.base), new: db.prepare(statements.new) };
  const perJob = { base: [], new: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['base', 'new'] : ['new', 'base'];
    for (const build of order) {
      const rows = take.all(WORKER, Date.now() + 60_000, BATCH);
      const now = Date.now();
      // A single-job handler's items: id, attempt, result, start; no batch size.
      const items = JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now]));
      const began = performance.now();
      // A statement without RETURNING (builds since 2026-12-07) answers with its change count.
      const statement = prepared[build];
      const done = statement.reader ? statement.all(now, now, items, WORKER).length : statement.run(now, now, items, WORKER).changes;
      perJob[build].push(((performance.now() - began) * 1000) / BATCH);
      if (done !== rows.length) throw new Error(`${build}: completed ${done} of ${rows.length}`);
    }
  }
  db.close();
  removeDb(file);
  const report = (build) => median(perJob[build]);
  console.log(`${ROUNDS} rounds of ${BATCH} single-job completions per build, median µs per job:`);
  console.log(
    `  base ${report('base').toFixed(2)}  new ${report('new').toFixed(2)}  new / base ${(report('new') / report('base')).toFixed(3)}`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
