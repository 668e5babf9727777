'use strict';
// What the job row and its indexes cost on the hot path, per layout, at the SQL level.
// better-sqlite3 runs SQLite on the calling thread, so the CPU time of this process (process.cpuUsage) is the
// statements' own cost: it moves far less with the load of a shared machine than a wall clock. Each layout starts
// from the library's schema (every migration step, taken from dist/), changes one thing, fills a fresh file with
// ROW_LAYOUT_TOTAL jobs over 4 queues (500-row inserts), then claims and completes them as the library does: one
// claim of up to 50 jobs for each of the 4 queues (the UNION ALL claim, RETURNING the packed columns), one fenced
// completion per claim round (json_each). Layouts alternate run by run; medians of ROW_LAYOUT_RUNS. No ANALYZE unless
// the layout says so (the library never runs it; an operator may).
//
// ROW_LAYOUT_HELD=n keeps up to n jobs per queue running between claims (each claim round's batch is completed only
// once more than that are held, oldest first), as a process with running handlers does: a claim then meets running
// rows ahead of the pending ones where a layout's claim index holds both. The "recovery read" column times the
// lease-recovery query (expired running rows) once per run, while the first round's jobs are held and the rest of
// the backlog is pending.
//
//   node bench/row-layout.js            (after npm run build)
//   ROW_LAYOUT_RUNS=7 ROW_LAYOUT_TOTAL=40000 ROW_LAYOUT_ONLY=current,no-trigger node bench/row-layout.js
//   ROW_LAYOUT_HELD=50 ROW_LAYOUT_ONLY=current,unfinished-claim-index node bench/row-layout.js
const fs = require('node:fs');
const path = require('node:path');
const Database = require('better-sqlite3');
const raw = require('./lib/raw-sql');
const { DATA_DIR } = require('./lib/common');

const { T } = raw;
const QUEUES = ['a', 'b', 'c', 'd'];
const PER_QUEUE_CLAIM = 50;
const RUNS = Number(process.env.ROW_LAYOUT_RUNS ?? 5);
const TOTAL = Number(process.env.ROW_LAYOUT_TOTAL ?? 40_000);
const HELD = Number(process.env.ROW_LAYOUT_HELD ?? 0);
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;
const PACKED =
  'data, json_array(id, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on) AS m';
const PLAIN =
  'id, queue, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on';
const Q = 'nest_queue_queues';

const claimSql = (returning, claimFilter = '', noStart = false) => `UPDATE ${T}
  SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ${NOW_MS} + ?, started_at = ${noStart ? 'NULL' : '?'}, updated_at = ?
  WHERE id IN (${QUEUES.map(
    () => `SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ?${claimFilter}
      AND NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ? AND (paused = 1 OR limited_until > ?))
      ORDER BY priority DESC, run_at, id LIMIT ?)`,
  ).join(' UNION ALL ')})
  RETURNING ${returning}`;
const claimParams = (now, noStart = false) => [
  'w',
  30_000,
  ...(noStart ? [now] : [now, now]),
  ...QUEUES.flatMap((queue) => [queue, now, queue, now, PER_QUEUE_CLAIM]),
];

/**
 * The completion; `pinned`: the status test kept off the running index (unary +), as the library does;
 * `keepOwner`: `locked_by` left as it is, as the library does since 3f49335 (a completed run names its process).
 */
const completeSql = (pinned, keepOwner = false, carriesStart = false) => `UPDATE ${T}
  SET status = 'completed', result = j.value ->> 2,${carriesStart ? ' started_at = coalesce(j.value ->> 3, started_at),' : ''} finished_at = ?, updated_at = ?,${keepOwner ? '' : ' locked_by = NULL,'} lease_until = NULL
  FROM json_each(?) AS j
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.locked_by = ? AND ${pinned ? '+' : ''}${T}.status = 'running'
  RETURNING ${T}.id`;

/**
 * Each layout: DDL run after the library's schema, and the claim's RETURNING. `note` says what it would take to ship.
 */
const LAYOUTS = {
  current: {
    ddl: [],
    returning: PACKED,
    note: 'the schema (every step of dist/) and the statements of the library, its completion as before 3f49335 (clearing locked_by); no statistics (the library never runs ANALYZE)',
  },
  'analyzed-unpinned': {
    ddl: [],
    analyze: true,
    unpinned: true,
    returning: PACKED,
    note: 'statistics (an operator ran ANALYZE or PRAGMA optimize): the completion walked every running row against the batch',
  },
  analyzed: { ddl: [], analyze: true, returning: PACKED, note: 'the same with the completion pinned to the primary key' },
  'completion-keeps-locked-by': {
    ddl: [],
    returning: PACKED,
    keepOwner: true,
    note: 'the completion leaves locked_by (3f49335: the library does so since, so a completed run names its process)',
  },
  'claimed-ahead': {
    ddl: [],
    returning: PACKED,
    keepOwner: true,
    noStart: true,
    note: 'the claim writes no start (started_at NULL: a job claimed ahead is not running); the completion writes each job its start, as the library does since schema step 18',
  },
  'claimed-ahead-starts-written': {
    ddl: [],
    returning: PACKED,
    keepOwner: true,
    noStart: true,
    markStarts: true,
    note: "the same, and every claim round its jobs' starts written by one statement of their own before the completion: the worst case, every job still running when the outcome writer flushes (long handlers)",
  },
  'no-child-trigger': {
    ddl: [`DROP TRIGGER ${T}_child_finished`],
    returning: PACKED,
    note: 'flows would need another way to release parents',
  },
  'child-trigger-on-status (step 7)': {
    ddl: childTriggerOn('status'),
    returning: PACKED,
    note: 'the flows trigger as step 7 left it: fired by every statement that sets status, the claim included',
  },
  'no-dependency-triggers': {
    ddl: [`DROP TRIGGER ${T}_dependency_finished`, `DROP TRIGGER ${T}_dependent_added`],
    returning: PACKED,
    note: 'without the triggers of job dependencies (step 17): what their WHEN costs a claim and a completion of jobs that have none',
  },
  'no-dead-letter-trigger': {
    ddl: [`DROP TRIGGER ${T}_dead_letter`],
    returning: PACKED,
    note: 'dead letters would need another writer',
  },
  'dead-letter-trigger-on-error': {
    ddl: deadLetterTriggerOn('error'),
    returning: PACKED,
    note: 'the dead-letter trigger fired only by statements that set error (fail, lease recovery), not by the claim nor the completion',
  },
  'no-running-index': {
    ddl: [`DROP INDEX ${T}_running`],
    returning: PACKED,
    note: 'lease recovery and the global-concurrency count would scan',
  },
  'no-finished-index': {
    ddl: [`DROP INDEX ${T}_finished`],
    returning: PACKED,
    note: 'counts, listings, retention and metrics need an index on finished rows',
  },
  'finished-index-without-status': {
    ddl: [`DROP INDEX ${T}_finished`, `CREATE INDEX ${T}_finished ON ${T} (queue, finished_at) WHERE finished_at IS NOT NULL`],
    returning: PACKED,
    note: 'reads by status would filter the rows of every finished status',
  },
  history: {
    ddl: [
      `CREATE TABLE ${T}_history AS SELECT * FROM ${T} WHERE 0`,
      `CREATE UNIQUE INDEX ${T}_history_id ON ${T}_history (id)`,
      `CREATE INDEX ${T}_history_finished ON ${T}_history (queue, status, finished_at)`,
      // The live table keeps no finished rows: its index of them goes.
      `DROP INDEX ${T}_finished`,
    ],
    returning: PACKED,
    completer: historyCompleter,
    note: 'a live table of pending and running jobs; the completion copies the finished job into a history table and deletes it from the live one, in one transaction',
  },
  'completion-counts-rows': {
    ddl: [],
    returning: PACKED,
    keepOwner: true,
    completer: (db) => {
      const complete = db.prepare(completeSql(true, true).replace(/\s*RETURNING \S+$/, ''));
      return (items) => complete.run(Date.now(), Date.now(), JSON.stringify(items), 'w').changes;
    },
    note: 'the completion as the library sends it, its RETURNING of ids left out: the statement only counts the rows it changed',
  },
  'delete-on-complete': {
    ddl: [],
    returning: PACKED,
    completer: (db) => {
      const remove = db.prepare(`DELETE FROM ${T} WHERE id IN (SELECT t.id FROM ${T} AS t JOIN json_each(?) AS j ON t.id = j.value ->> 0
        WHERE t.attempts = j.value ->> 1 AND +t.locked_by = ? AND +t.status = 'running')`);
      return (items) => remove.run(JSON.stringify(items), 'w').changes;
    },
    note: 'the completion deletes the row (retention keeping nothing), as graphile-worker does with every job',
  },
  'plain-returning': { ddl: [], returning: PLAIN, note: 'one JavaScript property per column and row instead of one JSON.parse' },
  'unfinished-claim-index': {
    ddl: [
      `DROP INDEX ${T}_claim`,
      `DROP INDEX ${T}_running`,
      `CREATE INDEX ${T}_claim ON ${T} (queue, priority DESC, run_at, id) WHERE finished_at IS NULL`,
    ],
    returning: PACKED,
    // SQLite takes a partial index only for a query whose WHERE implies the index's.
    claimFilter: ' AND finished_at IS NULL',
    note: 'one index over pending and running rows, which the claim leaves alone (no key column nor its WHERE changes); no running index: the claim checks the status of each entry in the row, lease recovery and the global-concurrency count scan',
  },
};

/** The history layout's completion: the finished job copied into the history table, then deleted, one transaction. */
function historyCompleter(db) {
  const columns = db.pragma(`table_info(${T})`).map((column) => column.name);
  const values = columns.map((name) =>
    name === 'status'
      ? `'completed'`
      : name === 'result'
        ? 'j.value ->> 2'
        : name === 'finished_at' || name === 'updated_at'
          ? '@now'
          : name === 'lease_until'
            ? 'NULL'
            : `t.${name}`,
  );
  const fence = `t.attempts = j.value ->> 1 AND +t.locked_by = @owner AND +t.status = 'running'`;
  const copy = db.prepare(`INSERT INTO ${T}_history (${columns.join(', ')})
    SELECT ${values.join(', ')} FROM ${T} AS t JOIN json_each(@json) AS j ON t.id = j.value ->> 0 WHERE ${fence}`);
  const remove = db.prepare(
    `DELETE FROM ${T} WHERE id IN (SELECT t.id FROM ${T} AS t JOIN json_each(@json) AS j ON t.id = j.value ->> 0 WHERE ${fence})`,
  );
  const move = db.transaction((items) => {
    const json = JSON.stringify(items);
    const copied = copy.run({ now: Date.now(), json, owner: 'w' }).changes;
    if (remove.run({ json, owner: 'w' }).changes !== copied) throw new Error('history: copied and deleted differ');
    return copied;
  });
  return move;
}

/** The schema's flows trigger, fired by `UPDATE OF column` (step 7: status; step 8: finished_at), same WHEN and body. */
function childTriggerOn(column) {
  const db = new Database(':memory:');
  for (const statement of raw.SCHEMA_SQL) db.exec(statement);
  const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(`${T}_child_finished`);
  db.close();
  return [`DROP TRIGGER ${T}_child_finished`, sql.replace(/AFTER UPDATE OF \w+ ON/, `AFTER UPDATE OF ${column} ON`)];
}

/** The schema's dead-letter trigger, fired by `UPDATE OF column`, same WHEN and body. */
function deadLetterTriggerOn(column) {
  const db = new Database(':memory:');
  for (const statement of raw.SCHEMA_SQL) db.exec(statement);
  const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(`${T}_dead_letter`);
  db.close();
  return [`DROP TRIGGER ${T}_dead_letter`, sql.replace(/AFTER UPDATE OF \w+ ON/, `AFTER UPDATE OF ${column} ON`)];
}

function open(file, ddl) {
  const db = new Database(file);
  for (const pragma of raw.PRAGMAS) db.pragma(pragma.replace(/^PRAGMA\s+/i, ''));
  for (const statement of raw.SCHEMA_SQL) db.exec(statement);
  for (const statement of ddl) db.exec(statement);
  return db;
}

function fill(db) {
  const rows = 500;
  const insert = db.prepare(raw.insertSql(rows));
  const time = Date.now();
  const perQueue = TOTAL / QUEUES.length;
  for (const queue of QUEUES) {
    for (let done = 0; done < perQueue; done += rows) {
      const params = [];
      for (let i = 0; i < rows; i++) params.push(...raw.rowParams(queue, JSON.stringify({ i: done + i }), time));
      insert.run(params);
    }
  }
}

/** CPU µs per job of claiming and completing every job (the JavaScript that reads the claimed rows included). */
function cycle(db, layout) {
  const claim = db.prepare(claimSql(layout.returning, layout.claimFilter, layout.noStart));
  const completeItems = layout.completer?.(db);
  const complete = completeItems
    ? { all: (_now, _updated, json) => ({ length: completeItems(JSON.parse(json)) }) }
    : db.prepare(completeSql(!layout.unpinned, layout.keepOwner, layout.noStart));
  // The library's statement of the starts of jobs still running (ClaimStorage.markStarted).
  const markStarts =
    layout.markStarts &&
    db.prepare(`UPDATE ${T} SET started_at = j.value ->> 2 FROM json_each(?) AS j
      WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.status = 'running' AND +${T}.locked_by = ? AND ${T}.started_at IS NULL`);
  const packed = layout.returning === PACKED;
  const before = process.cpuUsage();
  const started = process.hrtime.bigint();
  let done = 0;
  let recoveryUs;
  // Claimed batches not completed yet, oldest first, and how many jobs they hold.
  const heldBatches = [];
  let held = 0;
  const completeOldest = () => {
    const items = heldBatches.shift();
    held -= items.length;
    done += complete.all(Date.now(), Date.now(), JSON.stringify(items), 'w').length;
  };
  for (;;) {
    const now = Date.now();
    const rows = claim.all(claimParams(now, layout.noStart));
    if (rows.length === 0) break;
    const items = [];
    for (const row of rows) {
      const meta = packed ? JSON.parse(row.m) : row;
      // The fourth item: the job's start, which a completion writes when the claim wrote none.
      items.push([packed ? meta[0] : meta.id, packed ? meta[4] : meta.attempts, null, now]);
    }
    if (markStarts && markStarts.run(JSON.stringify(items.map(([id, attempt, , at]) => [id, attempt, at])), 'w').changes !== items.length) {
      throw new Error('claimed-ahead-starts-written: a start was not written');
    }
    heldBatches.push(items);
    held += items.length;
    recoveryUs ??= timeRecoveryRead(db);
    while (held > HELD * QUEUES.length) completeOldest();
  }
  while (heldBatches.length > 0) completeOldest();
  const cpu = process.cpuUsage(before);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (done !== TOTAL) throw new Error(`completed ${done} of ${TOTAL}`);
  // The recovery read is timed inside the cycle; its CPU is taken out of the per-job figure.
  return { cpuUs: (cpu.user + cpu.system - recoveryUs.cpu) / TOTAL, wallMs, recoveryUs: recoveryUs.each };
}

/**
 * The read of the library's lease recovery (the WHERE of its UPDATE: expired running rows; here none is expired, so
 * it finds nothing, as it does in nearly every round), median µs of 21 runs, and the CPU they took in all.
 */
function timeRecoveryRead(db) {
  const read = db.prepare(`SELECT id FROM ${T} WHERE status = 'running' AND lease_until < ?`);
  const times = [];
  const before = process.cpuUsage();
  for (let i = 0; i < 21; i++) {
    const started = process.hrtime.bigint();
    read.all(Date.now() - 60_000);
    times.push(Number(process.hrtime.bigint() - started) / 1e3);
  }
  const cpu = process.cpuUsage(before);
  return { each: median(times), cpu: cpu.user + cpu.system };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function main() {
  const only = process.env.ROW_LAYOUT_ONLY?.split(',');
  const names = Object.keys(LAYOUTS).filter((name) => !only || only.includes(name));
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    // Every other run in reverse order (A B, B A, …), so no layout always holds the same slot.
    for (const name of run % 2 === 1 ? [...names].reverse() : names) {
      const file = path.join(DATA_DIR, `row-layout-${name}.sqlite`);
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
      const db = open(file, LAYOUTS[name].ddl);
      fill(db);
      if (LAYOUTS[name].analyze) db.exec('ANALYZE');
      results[name].push(cycle(db, LAYOUTS[name]));
      db.close();
      for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    }
  }
  const base = median(results.current?.map((r) => r.cpuUs) ?? [NaN]);
  console.log(
    `${TOTAL} jobs, ${RUNS} runs each, alternated; up to ${HELD} per queue held running between claims; CPU µs per job of claim + completion (better-sqlite3)\n`,
  );
  console.log('| layout | CPU µs/job (median) | range | × current | × current, paired runs (median) | recovery read µs | note |');
  console.log('|---|---|---|---|---|---|---|');
  for (const name of names) {
    const cpu = results[name].map((r) => r.cpuUs);
    const m = median(cpu);
    const range = `${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}`;
    const paired = results.current ? median(cpu.map((value, i) => value / results.current[i].cpuUs)) : NaN;
    const recovery = median(results[name].map((r) => r.recoveryUs));
    console.log(
      `| ${name} | ${m.toFixed(2)} | ${range} | ${(m / base).toFixed(2)}× | ${paired.toFixed(3)}× | ${recovery.toFixed(1)} | ${LAYOUTS[name].note} |`,
    );
  }
}

main();
