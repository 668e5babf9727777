'use strict';
// Where a finished job should live on PostgreSQL, at the SQL level: the claim and the completion of the same backlog
// under four layouts of the jobs table, each from the library's schema (every migration step of dist/):
//   single     today's single table: the claim and the completion update the row (the library's own statements,
//              sent through its statement functions);
//   history    a live table of pending and running jobs; the completion deletes the row and inserts the finished
//              job into a history table with its own indexes, in one statement (WITH d AS (DELETE … RETURNING …)
//              INSERT INTO history SELECT …);
//   partition  the jobs table partitioned by LIST (status): pending, running, and the finished statuses, each
//              partition with the table's indexes; the claim and the completion move rows between partitions;
//   fillfactor today's single table with its pages filled to PG_LAYOUT_FILLFACTOR % (default 50) by inserts;
//   delete     the completion deletes the row (what graphile-worker does with every job; here, retention keeping
//              nothing).
// Each run fills a fresh schema with PG_LAYOUT_TOTAL jobs over 4 queues, ANALYZEs it, then claims 50 per queue (one
// statement, as the library does) and completes the batch (one statement) until nothing is left, on one connection.
// Per job: the server CPU of that connection's backend (/proc), the client's CPU (process.cpuUsage), WAL bytes
// (pg_current_wal_lsn before and after: every database of the server writes to it, so read it on a quiet server),
// the growth of the layout's indexes in bytes, and the share of HOT updates. Layouts alternate run by run.
//
//   node bench/pg-row-layout.js          (after npm run build; PostgreSQL on 127.0.0.1:5432, database queue_bench)
//   PG_LAYOUT_RUNS=5 PG_LAYOUT_TOTAL=40000 PG_LAYOUT_ONLY=single,history node bench/pg-row-layout.js
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { PG_URL, ensureBenchDatabase, withClient } = require('./lib/postgres');

const DIST = path.join(__dirname, '..', 'dist');
const { getMigrations } = require(DIST);
const { claimJobs } = require(path.join(DIST, 'storage/postgres/sql/claim.sql.js'));
const { completeJobs } = require(path.join(DIST, 'storage/postgres/sql/outcomes.sql.js'));
const { postgresTables, notifyFinished } = require(path.join(DIST, 'storage/postgres/sql/postgres-sql-fragments.js'));

const RUNS = Number(process.env.PG_LAYOUT_RUNS ?? 5);
const TOTAL = Number(process.env.PG_LAYOUT_TOTAL ?? 40_000);
const QUEUES = ['a', 'b', 'c', 'd'];
const PER_QUEUE = 50;
const WORKER = 'layout-worker';
const CLOCK_TICKS = 100;
const COLUMNS =
  'id,queue,status,data,priority,run_at,attempts,max_attempts,backoff,timeout_ms,unique_key,locked_by,lease_until,result,error,progress,schedule_key,created_at,started_at,finished_at,updated_at,name,logs,remove_on,parent_id,on_child_failure,job_group,key_until,debounce_key,origin,snoozes,trace_context,runs';

/** The completion's batch walked by position, fenced by owner and attempt (as the library's). */
const FENCE = `t.id = ($2::bigint[])[i] AND t.attempts = ($3::int[])[i] AND t.locked_by = $5 AND t.status = 'running'`;

const LAYOUTS = {
  single: {
    ddl: () => [],
    complete: null, // the library's own statement
    note: "today's layout: one row per job for its whole life, updated at the claim and at the completion",
  },
  history: {
    ddl: (T, H) => [
      `CREATE TABLE ${H} (LIKE ${T} INCLUDING DEFAULTS)`,
      `ALTER TABLE ${H} ADD PRIMARY KEY (id)`,
      `CREATE INDEX ON ${H} (queue, status, finished_at)`,
      `CREATE INDEX ON ${H} (parent_id) WHERE parent_id IS NOT NULL`,
      // The live table keeps no finished rows: its index of them goes.
      `DROP INDEX ${T.replace(/\.[^.]+$/, '')}.nest_queue_jobs_status`,
    ],
    complete: (T, H, tables) => `WITH completed AS (
        DELETE FROM ${T} AS t USING generate_subscripts($2::bigint[], 1) AS i WHERE ${FENCE}
        RETURNING t.*, ($4::text[])[i] AS new_result
      ), moved AS (
        INSERT INTO ${H} (${COLUMNS})
        SELECT ${COLUMNS.split(',')
          .map((column) =>
            column === 'status'
              ? `'completed'`
              : column === 'result'
                ? 'new_result'
                : column === 'finished_at' || column === 'updated_at'
                  ? '$1'
                  : column === 'lease_until'
                    ? 'NULL'
                    : column,
          )
          .join(', ')}
        FROM completed RETURNING id
      ),
      ${notifyFinished(tables, 'moved', '$1')}
      SELECT id FROM moved WHERE (SELECT count(*) FROM done) >= 0`,
    note: 'live table (pending, running) and a history table; the completion moves the row in one statement',
  },
  partition: {
    ddl: (T) => {
      const schema = T.replace(/\.[^.]+$/, '');
      const P = `${schema}.jobs_by_status`;
      return [
        `CREATE TABLE ${P} (LIKE ${T} INCLUDING DEFAULTS) PARTITION BY LIST (status)`,
        // Its ids from a sequence: LIKE does not copy the identity.
        `CREATE SEQUENCE ${schema}.jobs_by_status_id`,
        `ALTER TABLE ${P} ALTER COLUMN id SET DEFAULT nextval('${schema}.jobs_by_status_id')`,
        `CREATE TABLE ${schema}.jobs_pending PARTITION OF ${P} FOR VALUES IN ('pending')`,
        `CREATE TABLE ${schema}.jobs_running PARTITION OF ${P} FOR VALUES IN ('running')`,
        `CREATE TABLE ${schema}.jobs_finished PARTITION OF ${P} FOR VALUES IN ('completed', 'failed', 'cancelled')`,
        // A partitioned table's unique keys must hold its partition key: (id, status), not id alone.
        `ALTER TABLE ${P} ADD PRIMARY KEY (id, status)`,
        `CREATE INDEX ON ${schema}.jobs_pending (queue, priority DESC, run_at, id)`,
        `CREATE INDEX ON ${schema}.jobs_running (lease_until)`,
        `CREATE INDEX ON ${schema}.jobs_finished (queue, status, finished_at)`,
        `CREATE INDEX ON ${P} (parent_id, status) WHERE parent_id IS NOT NULL`,
        `CREATE INDEX ON ${schema}.jobs_pending (queue, job_group, priority DESC, run_at, id) WHERE job_group IS NOT NULL`,
        `CREATE INDEX ON ${P} (queue, job_group, status) WHERE job_group IS NOT NULL`,
        `DROP TABLE ${T}`,
        `ALTER TABLE ${P} RENAME TO nest_queue_jobs`,
      ];
    },
    complete: null, // the library's statement, on the partitioned table
    note: 'LIST partitions by status (pending, running, finished), each with its own indexes; rows move at the claim and the completion',
  },
  fillfactor: {
    // Pages filled to PG_LAYOUT_FILLFACTOR % (default 50) by inserts, the rest kept for updates: the claim's and the
    // completion's new row versions can stay on their page (still not HOT: the status column is indexed).
    ddl: (T) => [`ALTER TABLE ${T} SET (fillfactor = ${Number(process.env.PG_LAYOUT_FILLFACTOR ?? 50)})`],
    complete: null, // the library's own statement
    note: `today's layout with the table's fillfactor at ${Number(process.env.PG_LAYOUT_FILLFACTOR ?? 50)} %`,
  },
  delete: {
    ddl: () => [],
    complete: (T, H, tables) => `WITH completed AS (
        DELETE FROM ${T} AS t USING generate_subscripts($2::bigint[], 1) AS i WHERE ${FENCE} AND $4::text[] IS NOT NULL RETURNING t.id
      ),
      ${notifyFinished(tables, 'completed', '$1')}
      SELECT id FROM completed WHERE (SELECT count(*) FROM done) >= 0`,
    note: 'the completion deletes the row (retention keeping nothing)',
  },
};

/** CPU ms of a process so far, from /proc. */
function cpuMsOf(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The library's statement runner over one client: named statements where the library asks for them. */
function runnerOver(client) {
  const names = new Map();
  const query = async (sql, params, options) => {
    if (options?.reused) {
      if (!names.has(sql)) names.set(sql, `layout_${names.size}`);
      return client.query({ name: names.get(sql), text: sql, values: params });
    }
    return client.query(sql, params);
  };
  return {
    all: async (sql, params, options) => (await query(sql, params, options)).rows,
    run: async (sql, params, options) => (await query(sql, params, options)).rowCount ?? 0,
  };
}

async function oneRun(name, layout) {
  const schema = `bench_layout_${name}`;
  const tables = postgresTables(schema);
  const { T } = tables;
  const H = `"${schema}".nest_queue_history`;
  await withClient(PG_URL, async (admin) => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    for (const step of getMigrations('postgres', { schema })) for (const statement of step.sql) await admin.query(statement);
    for (const statement of layout.ddl(T, H)) await admin.query(statement);
    const now = Date.now();
    await admin.query(
      `INSERT INTO ${T} (queue, status, data, run_at, max_attempts, created_at, updated_at)
       SELECT (ARRAY['a','b','c','d'])[1 + n % 4], 'pending', '{"n":' || n || '}', $1, 3, $1, $1 FROM generate_series(1, $2) AS n`,
      [now, TOTAL],
    );
    await admin.query(`ANALYZE "${schema}".nest_queue_jobs`);
  });
  const indexBytes = (client) =>
    client
      .query(`SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint AS bytes FROM pg_stat_user_indexes WHERE schemaname = $1`, [
        schema,
      ])
      .then(({ rows }) => Number(rows[0].bytes));
  const walLsn = (client) => client.query('SELECT pg_current_wal_lsn() AS lsn').then(({ rows }) => rows[0].lsn);

  const client = new Client({ connectionString: PG_URL });
  await client.connect();
  const probe = new Client({ connectionString: PG_URL });
  await probe.connect();
  try {
    const pid = (await client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    const db = { runner: runnerOver(client), tables };
    const completeSql = layout.complete?.(T, H, tables);
    const indexBefore = await indexBytes(probe);
    const walBefore = await walLsn(probe);
    const serverBefore = cpuMsOf(pid);
    const clientBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    let done = 0;
    for (;;) {
      const now = Date.now();
      const claimed = await claimJobs(
        db,
        QUEUES.map((queue) => ({ queue, limit: PER_QUEUE })),
        WORKER,
        now,
        30_000,
      );
      if (claimed.length === 0) break;
      const completions = claimed.map((job) => ({ ref: { id: job.id, attempt: job.attempts }, result: '1' }));
      let completed;
      if (completeSql) {
        const { rows } = await client.query({
          name: 'layout_complete',
          text: completeSql,
          values: [
            Date.now(),
            completions.map((c) => c.ref.id),
            completions.map((c) => c.ref.attempt),
            completions.map((c) => c.result),
            WORKER,
          ],
        });
        completed = rows.length;
      } else {
        completed = (await completeJobs(db, completions, WORKER, Date.now())).size;
      }
      if (completed !== claimed.length) throw new Error(`${name}: completed ${completed} of ${claimed.length}`);
      done += completed;
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const clientCpu = process.cpuUsage(clientBefore);
    const serverMs = cpuMsOf(pid) - serverBefore;
    const walBytes = Number((await probe.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [walBefore])).rows[0].bytes);
    const indexGrowth = (await indexBytes(probe)) - indexBefore;
    // Table statistics reach the shared counters when a backend goes idle: make that happen now, read them fresh.
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');
    await probe.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await probe.query(
      `SELECT coalesce(sum(n_tup_upd), 0)::bigint AS upd, coalesce(sum(n_tup_hot_upd), 0)::bigint AS hot FROM pg_stat_user_tables WHERE schemaname = $1`,
      [schema],
    );
    if (done !== TOTAL) throw new Error(`${name}: ${done} of ${TOTAL} completed`);
    return {
      rate: (TOTAL / ms) * 1000,
      serverUs: (serverMs * 1000) / TOTAL,
      clientUs: ((clientCpu.user + clientCpu.system) / 1000 / TOTAL) * 1000,
      walBytes: walBytes / TOTAL,
      indexBytes: indexGrowth / TOTAL,
      hotShare: Number(rows[0].upd) ? Number(rows[0].hot) / Number(rows[0].upd) : NaN,
    };
  } finally {
    await client.end();
    await probe.end();
    await withClient(PG_URL, (admin) => admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
  }
}

async function main() {
  await ensureBenchDatabase();
  const only = process.env.PG_LAYOUT_ONLY?.split(',');
  const names = Object.keys(LAYOUTS).filter((name) => !only || only.includes(name));
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? names : [...names].reverse();
    for (const name of order) {
      results[name].push(await oneRun(name, LAYOUTS[name]));
      process.stderr.write(`run ${run + 1}/${RUNS} ${name}\n`);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const range = (values, digits) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
  const cell = (name, key, digits) => {
    const values = results[name].map((r) => r[key]);
    return `${median(values).toFixed(digits)} (${range(values, digits)})`;
  };
  const paired = (name, key) => median(results[name].map((r, i) => r[key] / results.single[i]?.[key]));
  console.log(
    `${TOTAL} jobs over ${QUEUES.length} queues, claims of ${PER_QUEUE} per queue and one completion per claim, ${RUNS} alternated runs; medians (range)`,
  );
  console.log('');
  console.log(
    '| layout | jobs/s | server µs/job | client µs/job | server × single (paired) | WAL bytes/job | index bytes/job | HOT updates | note |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const name of names) {
    const hot = median(results[name].map((r) => r.hotShare));
    console.log(
      `| ${name} | ${cell(name, 'rate', 0)} | ${cell(name, 'serverUs', 1)} | ${cell(name, 'clientUs', 1)} | ${results.single ? paired(name, 'serverUs').toFixed(2) + '×' : ''} | ${cell(name, 'walBytes', 0)} | ${cell(name, 'indexBytes', 0)} | ${Number.isNaN(hot) ? '—' : `${(hot * 100).toFixed(0)} %`} | ${LAYOUTS[name].note} |`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
