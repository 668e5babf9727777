'use strict';
// What the claim and completion statements cost at the SQL level, against variants of each. On better-sqlite3
// (the default) SQLite runs on the calling thread, so the CPU time of this process around one call is the
// statement's own cost (binding, SQLite's work, the row objects) plus, for a claim, the decode of its rows into what
// the library reads; with CSC_DRIVER=sqlite3 it also covers libuv's pool thread, where node-sqlite3 runs SQLite. The library's statements are taken from dist/ (the claim's text and parameters through
// claimJobs with a capturing runner, the completion's from outcomes.sql); each variant changes one thing. One file,
// one queue with a backlog of CSC_ROUNDS x CSC_CLAIM x variants jobs; every round runs each variant once, in an
// order rotated round by round, so a noisy spell hits all alike. The figure is the median over rounds of each
// variant's time divided by the library's in the same round (a paired ratio), with the quartiles of those ratios.
//
//   npm run build && flock /work/test.lock node bench/claim-statement-cost.js
//   CSC_ROUNDS=300 CSC_CLAIM=75 CSC_ONLY=claim node bench/claim-statement-cost.js
const path = require('node:path');
const Database = require('better-sqlite3');
const raw = require('./lib/raw-sql');
const { DIST_DIR, freshDbFile, median, removeDb } = require('./lib/common');

const ROUNDS = Number(process.env.CSC_ROUNDS ?? 300);
const CLAIM = Number(process.env.CSC_CLAIM ?? 75);
const ONLY = process.env.CSC_ONLY ?? 'claim,complete';
const DRIVER = process.env.CSC_DRIVER ?? 'better-sqlite3';
const WORKER = 'bench-worker';
const LEASE = 30_000;
const { T } = raw;
const { claimJobs } = require(path.join(DIST_DIR, 'storage/sqlite/sql/claim.sql'));
const { COMPLETE_MANY_SQL: LIB_COMPLETE_SQL } = require(path.join(DIST_DIR, 'storage/sqlite/sql/outcomes.sql'));
// Builds since 2026-12-07 complete without RETURNING (a change count); the variants below edit the form with it, so
// that each compares with the same rows read back.
const LIB_COMPLETE_RETURNS = /RETURNING/.test(LIB_COMPLETE_SQL);
const COMPLETE_MANY_SQL = LIB_COMPLETE_RETURNS ? LIB_COMPLETE_SQL : `${LIB_COMPLETE_SQL}\n  RETURNING ${T}.id`;

/** The library's claim text and parameters for one plain queue, as claimJobs sends them. */
async function libraryClaim(now) {
  let captured;
  const runner = {
    all: async (sql, params) => {
      captured = { sql, params };
      return [];
    },
  };
  await claimJobs(runner, [{ queue: 'q', limit: CLAIM }], WORKER, now, LEASE);
  return captured;
}

const PACKED_LIST =
  'id, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on, job_group, trace_context';
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;
const NOT_PAUSED_RE = /\s*AND NOT EXISTS \(SELECT 1 FROM \S+ WHERE \S+\.queue = \? AND \(paused = 1 OR limited_until > \?\)\)/;

/** A decode of a packed row (what toClaimedRecord reads), and of a row of plain columns. */
const decodePacked = (rows) => {
  let n = 0;
  for (const row of rows) n += JSON.parse(row.m)[0];
  return n;
};
const decodeColumns = (rows) => {
  let n = 0;
  for (const row of rows) n += row.id;
  return n;
};

/**
 * The claim's variants: a text (from the library's), parameters (from the library's), a decode. Each keeps the
 * library's semantics unless its note says otherwise.
 */
const CLAIM_VARIANTS = {
  lib: { edit: (sql) => sql, decode: decodePacked },
  // The library's statement with no JSON.parse of its rows: what the parse costs in JavaScript.
  'lib-unparsed': { edit: (sql) => sql, decode: (rows) => rows.length },
  // A single queue's branch without the subquery around it (the UNION ALL needs it for a LIMIT per branch).
  unwrapped: {
    edit: (sql) => sql.replace(/WHERE id IN \(SELECT id FROM \(([\s\S]*?LIMIT \?)\)\)/, 'WHERE id IN ($1)'),
    decode: decodePacked,
  },
  // The lease's end from a parameter (JavaScript's clock, as raw does): a floor, the library counts it from SQLite's.
  'lease-param': {
    edit: (sql) => sql.replace(`lease_until = ${NOW_MS} + ?`, 'lease_until = ?'),
    params: (params) => [params[0], Date.now() + LEASE, ...params.slice(2)],
    decode: decodePacked,
  },
  // What the packed column costs: RETURNING only what raw returns (drops fields the worker reads: a floor, not a candidate).
  'returning-id-data': { edit: (sql) => sql.replace(/RETURNING [\s\S]*$/, 'RETURNING id, data'), decode: decodeColumns },
  // The same fields as plain columns (better-sqlite3 builds one property per column).
  columns: { edit: (sql) => sql.replace(/RETURNING [\s\S]*$/, `RETURNING data, ${PACKED_LIST}`), decode: decodeColumns },
  // The same columns as arrays (better-sqlite3's raw mode, which TypeORM's query runner does not offer): on node-sqlite3 the same as `columns`.
  'columns-raw-rows': {
    edit: (sql) => sql.replace(/RETURNING [\s\S]*$/, `RETURNING data, ${PACKED_LIST}`),
    rawRows: true,
    decode: (rows) => {
      let n = 0;
      for (const row of rows) n += Array.isArray(row) ? row[1] : row.id;
      return n;
    },
  },
  // The paused-queue test dropped (a floor: loses behaviour).
  'no-paused-test': {
    edit: (sql) => sql.replace(NOT_PAUSED_RE, ''),
    params: (params) => params.filter((_, i) => i !== 5 && i !== 6),
    decode: decodePacked,
  },
  // The lease's end computed once for the statement instead of once per row.
  'lease-once': {
    edit: (sql) => sql.replace(`lease_until = ${NOW_MS} + ?`, `lease_until = (SELECT ${NOW_MS} + ?)`),
    decode: decodePacked,
  },
  // The packed array cut after the last non-null value of a plain job's trailing optional fields.
  'packed-short': {
    edit: (sql) =>
      sql.replace(
        /json_array\([^)]*\) AS m/,
        `CASE WHEN backoff IS NULL AND timeout_ms IS NULL AND unique_key IS NULL AND name IS NULL AND remove_on IS NULL AND job_group IS NULL AND trace_context IS NULL
          THEN json_array(id, queue, priority, run_at, attempts, max_attempts, created_at, lease_until)
          ELSE json_array(${PACKED_LIST}) END AS m`,
      ),
    decode: decodePacked,
  },
  // A text row instead of JSON: fields joined by a separator no value of the short fields holds (a floor for an encoding).
  'concat-text': {
    edit: (sql) =>
      sql.replace(
        /json_array\([^)]*\) AS m/,
        `id || ',' || priority || ',' || run_at || ',' || attempts || ',' || max_attempts || ',' || created_at || ',' || lease_until AS m, queue`,
      ),
    decode: (rows) => {
      let n = 0;
      for (const row of rows) n += Number(row.m.split(',')[0]);
      return n;
    },
  },
  // raw's own claim (no paused test, lease from a parameter, RETURNING id, data): the ceiling.
  raw: { raw: true, decode: decodeColumns },
};

/** The completion's variants. */
const COMPLETE_VARIANTS = {
  lib: {
    sql: () => LIB_COMPLETE_SQL,
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now])), WORKER],
    run: !LIB_COMPLETE_RETURNS,
  },
  // The same completion reading back the ids it completed (the library's statement before 2026-12-07).
  returning: {
    sql: () => COMPLETE_MANY_SQL,
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now])), WORKER],
  },
  // Each item's values bound as parameters of a VALUES list (one text per batch size).
  values: {
    sql: (n) => `UPDATE ${T}
  SET status = 'completed', result = j.column3, started_at = coalesce(j.column4, started_at), finished_at = ?, updated_at = ?, lease_until = NULL
  FROM (VALUES ${Array(n).fill('(?, ?, ?, ?)').join(', ')}) AS j
  WHERE ${T}.id = j.column1 AND ${T}.attempts = j.column2 AND +${T}.locked_by = ? AND +${T}.status = 'running'
  RETURNING ${T}.id`,
    params: (rows, now) => [now, now, ...rows.flatMap((row) => [row.id, row.attempts, null, now]), WORKER],
  },
  // The same, padded with rows of nulls to a multiple of 64 items (few texts).
  'values-pad64': {
    sql: (n) => COMPLETE_VARIANTS.values.sql(Math.ceil(n / 64) * 64),
    params: (rows, now) => {
      const flat = rows.flatMap((row) => [row.id, row.attempts, null, now]);
      while (flat.length % 256 !== 0) flat.push(null);
      return [now, now, ...flat, WORKER];
    },
  },
  // json_extract of the item instead of three ->>.
  'json-extract': {
    sql: () => COMPLETE_MANY_SQL.replace(/j\.value ->> (\d)/g, (_, i) => `json_extract(j.value, '$[${i}]')`),
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now])), WORKER],
  },
  // Flat array of objects: ->> by key.
  objects: {
    sql: () =>
      COMPLETE_MANY_SQL.replace(/j\.value ->> 0/g, "j.value ->> 'i'")
        .replace(/j\.value ->> 1/g, "j.value ->> 'a'")
        .replace(/j\.value ->> 2/g, "j.value ->> 'r'")
        .replace(/j\.value ->> 3/g, "j.value ->> 's'"),
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => ({ i: row.id, a: row.attempts, r: null, s: now }))), WORKER],
  },
  // Floors, each dropping what the library needs, to split its cost: no RETURNING (a change count only),
  'no-returning': {
    sql: () => COMPLETE_MANY_SQL.replace(/\s*RETURNING [\s\S]*$/, ''),
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now])), WORKER],
    run: true,
  },
  // no result or start written,
  'no-result-start': {
    sql: () => COMPLETE_MANY_SQL.replace('result = j.value ->> 2, started_at = coalesce(j.value ->> 3, started_at), ', ''),
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => [row.id, row.attempts, null, now])), WORKER],
  },
  // no attempt or owner fence (items of ids only, status still tested).
  'no-fence': {
    sql: () =>
      COMPLETE_MANY_SQL.replace('result = j.value ->> 2, started_at = coalesce(j.value ->> 3, started_at), ', '')
        .replace(/ AND \S+\.attempts = j\.value ->> 1/, '')
        .replace(/AND \+\S+\.locked_by = \? /, '')
        .replace(/j\.value ->> 0/, 'j.value'),
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => row.id))],
  },
  // raw's completion (no fence on the attempt or owner, no result or start, no RETURNING): the ceiling.
  raw: {
    run: true,
    sql: () => raw.COMPLETE_BATCH_SQL,
    params: (rows, now) => [now, now, JSON.stringify(rows.map((row) => row.id))],
  },
};

/**
 * The file through either driver: exec, and prepared statements whose all/run return promises (node-sqlite3 runs
 * them on libuv's pool, so the process's CPU time then covers that thread too).
 */
async function openDb(file) {
  if (DRIVER === 'better-sqlite3') {
    const db = new Database(file);
    return {
      exec: async (sql) => db.exec(sql),
      prepare: (sql, rawRows = false) => {
        const statement = db.prepare(sql);
        if (rawRows) statement.raw(true);
        return { all: async (...params) => statement.all(...params), run: async (...params) => statement.run(...params) };
      },
      close: async () => db.close(),
    };
  }
  const sqlite3 = require('sqlite3');
  const db = await new Promise((resolve, reject) => {
    const opened = new sqlite3.Database(file, (error) => (error ? reject(error) : resolve(opened)));
  });
  const call = (target, method, params) =>
    new Promise((resolve, reject) =>
      target[method](...params, function (error, rows) {
        return error ? reject(error) : resolve(method === 'all' ? rows : this);
      }),
    );
  const prepared = [];
  return {
    exec: (sql) => call(db, 'exec', [sql]),
    prepare: (sql) => {
      const statement = db.prepare(sql);
      prepared.push(statement);
      return { all: (...params) => call(statement, 'all', params), run: (...params) => call(statement, 'run', params) };
    },
    close: async () => {
      for (const statement of prepared) await new Promise((resolve) => statement.finalize(resolve));
      await call(db, 'close', []);
    },
  };
}

function cpuMicros() {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

async function fill(db, total) {
  const insert500 = db.prepare(raw.insertSql(500));
  const now = Date.now() - 1000;
  await db.exec('BEGIN');
  for (let added = 0; added < total; added += 500) {
    const params = [];
    for (let n = 0; n < 500; n++) params.push(...raw.rowParams('q', `{"n":${added + n}}`, now));
    await insert500.run(...params);
  }
  await db.exec('COMMIT');
}

function summarize(title, times, names) {
  console.log(title);
  const base = times.lib;
  for (const name of names) {
    const ratios = times[name].map((t, i) => t / base[i]).sort((a, b) => a - b);
    const q = (p) => ratios[Math.floor((ratios.length - 1) * p)];
    const below = ratios.filter((r) => r < 1).length;
    console.log(
      `  ${name.padEnd(18)} ${(median(times[name]) / CLAIM).toFixed(2).padStart(6)} µs/job  ratio ${median(ratios).toFixed(3)} (IQR ${q(0.25).toFixed(3)}-${q(0.75).toFixed(3)}, ${below}/${ratios.length} below 1)`,
    );
  }
}

async function main() {
  const names = { claim: Object.keys(CLAIM_VARIANTS), complete: Object.keys(COMPLETE_VARIANTS) };
  const parts = ONLY.split(',');
  const total = ROUNDS * CLAIM * (names.claim.length + (parts.includes('complete') ? names.complete.length : 0)) + CLAIM;
  const file = freshDbFile(`claim-statement-cost-${process.pid}.sqlite`);
  const db = await openDb(file);
  for (const pragma of raw.PRAGMAS) await db.exec(pragma);
  for (const sql of raw.SCHEMA_SQL) await db.exec(sql);
  await fill(db, total);
  const lib0 = await libraryClaim(Date.now());
  const statements = {};
  for (const [name, variant] of Object.entries(CLAIM_VARIANTS)) {
    statements[name] = db.prepare(variant.raw ? raw.CLAIM_SQL : variant.edit(lib0.sql), variant.rawRows === true);
  }
  const complete = {};
  const times = { claim: {}, complete: {} };
  for (const name of names.claim) times.claim[name] = [];
  for (const name of names.complete) times.complete[name] = [];
  const plainClaim = db.prepare(raw.CLAIM_SQL.replace('RETURNING id, data', 'RETURNING id, attempts'));
  for (let round = 0; round < ROUNDS; round++) {
    if (parts.includes('claim')) {
      const order = names.claim.map((_, i) => names.claim[(i + round) % names.claim.length]);
      for (const name of order) {
        const variant = CLAIM_VARIANTS[name];
        const now = Date.now();
        const params = variant.raw
          ? [WORKER, now + LEASE, now, now, 'q', now, CLAIM]
          : (variant.params ?? ((p) => p))((await libraryClaim(now)).params);
        const began = cpuMicros();
        const rows = await statements[name].all(...params);
        variant.decode(rows);
        times.claim[name].push(cpuMicros() - began);
        if (rows.length !== CLAIM) throw new Error(`${name}: claimed ${rows.length}`);
      }
    }
    if (parts.includes('complete')) {
      const order = names.complete.map((_, i) => names.complete[(i + round) % names.complete.length]);
      for (const name of order) {
        const variant = COMPLETE_VARIANTS[name];
        const now = Date.now();
        const rows = await plainClaim.all(WORKER, now + LEASE, now, now, 'q', now, CLAIM);
        const key = `${name}:${rows.length}`;
        complete[key] ??= db.prepare(variant.sql(rows.length));
        const params = variant.params(rows, now);
        const began = cpuMicros();
        const done = variant.run ? [] : await complete[key].all(...params);
        if (variant.run) await complete[key].run(...params);
        times.complete[name].push(cpuMicros() - began);
        if (!variant.run && done.length !== rows.length) throw new Error(`${name}: completed ${done.length}`);
      }
    }
  }
  await db.close();
  removeDb(file);
  console.log(`${ROUNDS} rounds, ${CLAIM} jobs per statement, CPU of the process (${DRIVER})`);
  if (parts.includes('claim'))
    summarize('claim (statement + decode of its rows), median µs per job, paired ratio to lib:', times.claim, names.claim);
  if (parts.includes('complete'))
    summarize('completion (statement), median µs per job, paired ratio to lib:', times.complete, names.complete);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
