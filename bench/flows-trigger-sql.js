'use strict';
// The flows step's cost at the SQL level, without the rest of the library: on two SQLite files with the library's
// schema (all steps of getMigrations('sqlite')), one keeping the flows triggers and children index and one without
// them, the same claim and completion statements the library runs (500 rows each), alternated round by round in one
// process on better-sqlite3. What is left is SQLite's own per-row cost of the triggers' WHEN test and of the
// partial index check.   node bench/flows-trigger-sql.js   (after `npm run build`)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Database = require('better-sqlite3');
const { DIST_DIR } = require('./lib/common');
const { getMigrations } = require(DIST_DIR);

const JOBS = Number(process.env.FLOWS_SQL_JOBS || 50_000);
const ROUNDS = Number(process.env.FLOWS_SQL_ROUNDS || 7);
const BATCH = 500;
const T = 'nest_queue_jobs';

function open(file, withFlows) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('recursive_triggers = ON');
  for (const step of getMigrations('sqlite')) for (const statement of step.sql) db.exec(statement);
  if (!withFlows) {
    db.exec(`DROP TRIGGER ${T}_child_finished; DROP TRIGGER ${T}_child_removed; DROP INDEX ${T}_children;`);
  }
  const insert = db.prepare(`INSERT INTO ${T} (queue, status, data, priority, run_at, attempts, max_attempts, created_at, updated_at)
    SELECT 'q', 'pending', '{}', 0, 0, 0, 3, 0, 0 FROM json_each(?)`);
  const claim =
    db.prepare(`UPDATE ${T} SET status = 'running', attempts = attempts + 1, locked_by = 'w', lease_until = 1, started_at = 1, updated_at = 1
    WHERE id IN (SELECT id FROM ${T} WHERE queue = 'q' AND status = 'pending' AND run_at <= 1 ORDER BY priority DESC, run_at, id LIMIT ?) RETURNING id`);
  const complete =
    db.prepare(`UPDATE ${T} SET status = 'completed', result = NULL, finished_at = 2, updated_at = 2, locked_by = NULL, lease_until = NULL
    FROM json_each(?) AS j WHERE ${T}.id = j.value AND +${T}.locked_by = 'w' AND ${T}.status = 'running' RETURNING ${T}.id`);
  return { db, insert, claim, complete };
}

/** Claims and completes JOBS jobs, BATCH at a time; returns ns per job. */
function cycle({ db, insert, claim, complete }) {
  insert.run(JSON.stringify(Array.from({ length: JOBS }, () => 0)));
  const start = process.hrtime.bigint();
  for (;;) {
    const ids = claim.all(BATCH).map((row) => row.id);
    if (ids.length === 0) break;
    complete.all(JSON.stringify(ids));
  }
  const ns = Number(process.hrtime.bigint() - start) / JOBS;
  db.exec(`DELETE FROM ${T}`);
  return ns;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flows-sql-'));
const variants = { with: open(path.join(dir, 'with.sqlite'), true), without: open(path.join(dir, 'without.sqlite'), false) };
const times = { with: [], without: [] };
cycle(variants.with);
cycle(variants.without);
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 ? ['without', 'with'] : ['with', 'without']) times[name].push(cycle(variants[name]));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
// The minimum is the run least disturbed by other work on the machine; the median is shown beside it.
for (const [label, pick] of [
  ['min', (values) => Math.min(...values)],
  ['median', median],
]) {
  const [w, wo] = [pick(times.with), pick(times.without)];
  console.log(
    `claim + complete per job (better-sqlite3, ${JOBS} jobs, batches of ${BATCH}, ${label} of ${ROUNDS}): ` +
      `without flows ${(wo / 1000).toFixed(2)} µs, with flows ${(w / 1000).toFixed(2)} µs: ${((w / wo - 1) * 100).toFixed(1)} %`,
  );
}
Object.values(variants).forEach(({ db }) => db.close());
fs.rmSync(dir, { recursive: true, force: true });
