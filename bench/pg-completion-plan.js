'use strict';
// What a PostgreSQL completion batch costs per plan, at the SQL level: the statement the library sends now (captured
// from dist/ through its own statement function), against the batch completion as it was planned at every call
// (an unnest join sent unnamed) and that same text prepared (kept by the server, generic plan after five calls).
// Each variant runs on a fresh connection of its own, so a prepared statement's first five calls (custom plans) are in
// its figures. The table holds PG_PLAN_TOTAL pending jobs, ANALYZEd after the fill (as autovacuum would: most rows
// pending, none running), then rounds alternate the variants: claim PG_PLAN_BATCH jobs, complete them, time the
// completion (a local round trip; the machine's load moves it, so the variants alternate round by round and the
// report gives medians and each variant's ratio to the library's statement in the same rounds). The client's CPU
// around each call (process.cpuUsage: sending, and node-postgres parsing what comes back) is summed per variant.
//
//   node bench/pg-completion-plan.js          (after npm run build; PostgreSQL on 127.0.0.1:5432, database queue_bench)
//   PG_PLAN_ROUNDS=60 PG_PLAN_BATCH=200 PG_PLAN_TOTAL=100000 node bench/pg-completion-plan.js
//   PG_PLAN_NO_TRIGGERS=1 node bench/pg-completion-plan.js   (the table's row triggers disabled)
//   PG_PLAN_BASE_DIST=/path/to/other/dist node bench/pg-completion-plan.js   (adds that build's statement, same rounds)
//   PG_PLAN_OTHER_RUNNING=600 node bench/pg-completion-plan.js   (that many jobs claimed by another worker and left
//     running, as other processes' jobs in flight are; ANALYZE runs after they are claimed)
//   PG_PLAN_EXPLAIN=1 node bench/pg-completion-plan.js   (prints the plan the library's statement runs with, prepared,
//     after five calls: the generic plan, as a long-lived connection runs it)
// The library's statement runs twice: with no batch size (single-job handlers' completions) and with each job's batch
// size set (a batch handler's), so the cost of the per-job size array is read in the same rounds.
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { PG_URL, ensureBenchDatabase, withClient } = require('./lib/postgres');

const DIST = path.join(__dirname, '..', 'dist');
const { getMigrations } = require(DIST);
const { postgresTables, notifyFinished } = require(path.join(DIST, 'storage/postgres/sql/postgres-sql-fragments.js'));

const SCHEMA = 'bench_completion_plan';
const ROUNDS = Number(process.env.PG_PLAN_ROUNDS ?? 40);
const BATCH = Number(process.env.PG_PLAN_BATCH ?? 200);
const TOTAL = Number(process.env.PG_PLAN_TOTAL ?? 100_000);
const WORKER = 'bench-worker';
const OTHER_RUNNING = Number(process.env.PG_PLAN_OTHER_RUNNING ?? 0);
/** Linux's USER_HZ: /proc counts CPU time in these ticks. */
const CLOCK_TICKS = 100;
const tables = postgresTables(SCHEMA);
const { T } = tables;

/** The completion batch as the library sent it before 2026-12-06 (planned at each call): an unnest join. */
const UNNEST_JOIN = `/* complete */ WITH completed AS (
    UPDATE ${T} AS t
    SET status = 'completed', result = c.result, finished_at = $1, updated_at = $1, lease_until = NULL
    FROM unnest($2::bigint[], $3::int[], $4::text[]) AS c(id, attempt, result)
    WHERE t.id = c.id AND t.attempts = c.attempt AND t.locked_by = $5 AND t.status = 'running'
    RETURNING t.id
  ),
  ${notifyFinished(tables, 'completed', '$1')}
  SELECT id FROM completed WHERE (SELECT count(*) FROM done) >= 0`;

/**
 * The statement a build of the library sends, whether it names it, and how many parameters it takes beyond the five
 * every completion batch has (now, ids, attempts, results, worker): each job's start, and its batch size.
 */
async function libraryStatement(dist = DIST) {
  const { completeJobs } = require(path.join(dist, 'storage/postgres/sql/outcomes.sql.js'));
  let caught;
  const runner = {
    all: async (sql, params, options) => {
      caught = { sql, reused: Boolean(options?.reused), extra: params.length - 5 };
      return [];
    },
    run: async () => 0,
  };
  await completeJobs({ runner, tables }, [{ ref: { id: '1', attempt: 1 }, result: null }], WORKER, Date.now());
  return caught;
}

/** CPU time (user + system, ms) of a server process so far, from /proc: each variant has its own connection, so its own backend. */
function serverCpuMs(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

async function main() {
  await ensureBenchDatabase();
  const library = await libraryStatement();
  const prepared = library.reused ? 'prepared' : 'unnamed';
  const variants = [
    { name: `library (${prepared}), no batch size`, sql: library.sql, prepared: library.reused, extra: library.extra },
    {
      name: `library (${prepared}), every job's batch size 100`,
      sql: library.sql,
      prepared: library.reused,
      extra: library.extra,
      size: 100,
    },
    { name: 'unnest join, unnamed (planned per call)', sql: UNNEST_JOIN, prepared: false, extra: 0 },
    { name: 'unnest join, prepared', sql: UNNEST_JOIN, prepared: true, extra: 0 },
  ];
  if (process.env.PG_PLAN_BASE_DIST) {
    const base = await libraryStatement(path.resolve(process.env.PG_PLAN_BASE_DIST));
    variants.push({
      name: `base build (${base.reused ? 'prepared' : 'unnamed'}), no batch size`,
      sql: base.sql,
      prepared: base.reused,
      extra: base.extra,
    });
  }

  await withClient(PG_URL, async (admin) => {
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    for (const step of getMigrations('postgres', { schema: SCHEMA })) for (const statement of step.sql) await admin.query(statement);
    const now = Date.now();
    await admin.query(
      `INSERT INTO ${T} (queue, status, data, run_at, max_attempts, created_at, updated_at)
       SELECT 'q', 'pending', '{}', $1, 3, $1, $1 FROM generate_series(1, $2)`,
      [now, TOTAL],
    );
    // PG_PLAN_NO_TRIGGERS=1: the jobs table without its row triggers, to see what they cost a completion.
    if (process.env.PG_PLAN_NO_TRIGGERS) await admin.query(`ALTER TABLE ${T} DISABLE TRIGGER USER`);
    // Other processes' jobs in flight: running rows of another worker, which no completion of this one may touch.
    if (OTHER_RUNNING > 0)
      await admin.query(
        `UPDATE ${T} SET status = 'running', attempts = 1, locked_by = 'other-worker', lease_until = $1, updated_at = $1
         WHERE id IN (SELECT id FROM ${T} ORDER BY id DESC LIMIT $2)`,
        [now + 600_000, OTHER_RUNNING],
      );
    await admin.query(`ANALYZE ${T}`);
  });

  const clients = [];
  for (const variant of variants) {
    const client = new Client({ connectionString: PG_URL });
    await client.connect();
    clients.push(client);
    variant.times = [];
    variant.pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    variant.cpuBefore = serverCpuMs(variant.pid);
  }
  const claimer = new Client({ connectionString: PG_URL });
  await claimer.connect();
  const claim = async () => {
    const { rows } = await claimer.query(
      `UPDATE ${T} SET status = 'running', attempts = attempts + 1, locked_by = $1, lease_until = $2, started_at = $2, updated_at = $2
       WHERE id IN (SELECT id FROM ${T} WHERE queue = 'q' AND status = 'pending' ORDER BY priority DESC, run_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
       RETURNING id, attempts`,
      [WORKER, Date.now() + 30_000, BATCH],
    );
    return rows;
  };

  const paired = variants.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = variants.map((_, index) => (index + round) % variants.length);
    const roundTimes = [];
    for (const index of order) {
      const variant = variants[index];
      const rows = await claim();
      if (rows.length < BATCH) throw new Error(`the table ran out of pending jobs: raise PG_PLAN_TOTAL`);
      const params = [Date.now(), rows.map((row) => row.id), rows.map((row) => row.attempts), rows.map(() => '1'), WORKER];
      // Each job's start (none: the claim wrote it) and, where the statement takes it, its batch size (the last).
      for (let extra = 0; extra < variant.extra; extra++)
        params.push(rows.map(() => (extra === variant.extra - 1 && variant.size ? variant.size : null)));
      const config = variant.prepared
        ? { name: `plan_${index}`, text: variant.sql, values: params }
        : { text: variant.sql, values: params };
      const started = process.hrtime.bigint();
      const cpuBefore = process.cpuUsage();
      const result = await clients[index].query(config);
      const cpu = process.cpuUsage(cpuBefore);
      variant.clientUs = (variant.clientUs ?? 0) + cpu.user + cpu.system;
      const took = Number(process.hrtime.bigint() - started) / 1e6;
      // A build's statement answers with the completed ids, or (since 2026-12-07) with their number.
      const completed = result.rows[0]?.completed !== undefined ? Number(result.rows[0].completed) : result.rows.length;
      if (completed !== BATCH) throw new Error(`${variant.name} completed ${completed} of ${BATCH}`);
      variant.times.push(took);
      roundTimes[index] = took;
    }
    for (let index = 0; index < variants.length; index++) paired[index].push(roundTimes[index] / roundTimes[0]);
  }

  for (const variant of variants) variant.cpuMs = serverCpuMs(variant.pid) - variant.cpuBefore;
  if (process.env.PG_PLAN_EXPLAIN) await explainLibrary(clients[0], library, claim);
  for (const client of [...clients, claimer]) await client.end();
  await withClient(PG_URL, (admin) => admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`));

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const fmt = (value) => value.toFixed(2);
  console.log(
    `${TOTAL} pending jobs (ANALYZEd), ${OTHER_RUNNING} running for another worker, ${ROUNDS} rounds of ${BATCH}-job completion batches per variant, alternated`,
  );
  console.log('');
  console.log(
    '| variant | ms per batch (median) | first 5 calls (ms) | calls 6+ median (ms) | max (ms) | × library, same rounds (median) | server CPU ms per batch | client CPU ms per batch |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  variants.forEach((variant, index) => {
    const first = variant.times.slice(0, 5).map(fmt).join(', ');
    console.log(
      `| ${variant.name} | ${fmt(median(variant.times))} | ${first} | ${fmt(median(variant.times.slice(5)))} | ${fmt(Math.max(...variant.times))} | ${median(paired[index]).toFixed(2)}× | ${fmt(variant.cpuMs / ROUNDS)} | ${fmt(variant.clientUs / 1000 / ROUNDS)} |`,
    );
  });
}

/** The plan of the library's statement on a connection that has run it prepared more than five times (generic). */
async function explainLibrary(client, library, claim) {
  const rows = await claim();
  const params = [Date.now(), rows.map((row) => row.id), rows.map((row) => row.attempts), rows.map(() => '1'), WORKER];
  for (let extra = 0; extra < library.extra; extra++) params.push(rows.map(() => null));
  const literal = (value) =>
    Array.isArray(value) ? `'{${value.map((item) => (item === null ? 'NULL' : item)).join(',')}}'` : `'${value}'`;
  await client.query(`PREPARE explained AS ${library.sql}`);
  // Five custom plans first, each completing nothing (attempt 0 matches no row), then the generic one is explained.
  const idle = params.map((value, index) => (index === 2 ? value.map(() => 0) : value));
  for (let call = 0; call < 6; call++) await client.query(`EXECUTE explained(${idle.map(literal).join(', ')})`);
  const plan = await client.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) EXECUTE explained(${params.map(literal).join(', ')})`);
  console.log(`\nThe library's statement, generic plan (${OTHER_RUNNING} other running jobs):`);
  for (const row of plan.rows) console.log(`    ${row['QUERY PLAN']}`);
}

// Exits on a failure: the open connections would otherwise keep the process waiting.
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
