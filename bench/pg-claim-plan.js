'use strict';
// What a PostgreSQL plain claim costs the server per call, at the SQL level: the statement of this build (dist/)
// against another build's (PG_CLAIM_BASE_DIST), each caught through claimJobs with a capturing runner and sent
// prepared on a connection of its own (so each has its own server backend, whose CPU is read from /proc), as the
// library sends it. The table holds PG_CLAIM_TOTAL pending jobs over 4 queues, ANALYZEd (as autovacuum leaves a filled
// table); rounds alternate the two builds, each claiming PG_CLAIM_LIMIT jobs of each queue. PG_CLAIM_QUEUES (1 to 4,
// default 4) sets how many queues share the backlog: one queue of millions shows what the claim's price does with a
// deep backlog (the server JIT-compiles a statement priced above jit_above_cost). Reported: each build's
// server CPU per claim (10 ms ticks summed over its rounds), the median round trip, the plans the server made
// (pg_prepared_statements: generic and custom) and the median over rounds of the time ratio to this build's.
//
//   npm run build && node bench/pg-claim-plan.js        (PostgreSQL on 127.0.0.1:5432, database queue_bench)
//   PG_CLAIM_BASE_DIST=.tmp/dist-base PG_CLAIM_ROUNDS=300 PG_CLAIM_LIMIT=75 node bench/pg-claim-plan.js
//   PG_CLAIM_BASE_DIST=.tmp/dist-base PG_CLAIM_QUEUES=1 PG_CLAIM_TOTAL=5000000 PG_CLAIM_ROUNDS=50 node bench/pg-claim-plan.js
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');
const { PG_URL, ensureBenchDatabase, withClient } = require('./lib/postgres');

const DIST = path.join(__dirname, '..', 'dist');
const BASE = process.env.PG_CLAIM_BASE_DIST ? path.resolve(process.env.PG_CLAIM_BASE_DIST) : null;
const ROUNDS = Number(process.env.PG_CLAIM_ROUNDS ?? 200);
const LIMIT = Number(process.env.PG_CLAIM_LIMIT ?? 75);
const QUEUES = ['a', 'b', 'c', 'd'].slice(0, Number(process.env.PG_CLAIM_QUEUES ?? 4));
const TOTAL = Number(process.env.PG_CLAIM_TOTAL ?? ROUNDS * LIMIT * QUEUES.length * 2 + 10_000);
const SCHEMA = 'bench_claim_plan';
const CLOCK_TICKS = 100;
const { getMigrations } = require(DIST);
const { postgresTables } = require(path.join(DIST, 'storage/postgres/sql/postgres-sql-fragments.js'));
const tables = postgresTables(SCHEMA);

/** The plain claim of a build, as its claimJobs sends it: text, parameters, and whether it is prepared. */
async function claimStatement(dist) {
  const { claimJobs } = require(path.join(dist, 'storage/postgres/sql/claim.sql.js'));
  let caught;
  const runner = {
    all: async (sql, params, options) => {
      caught = { sql, reused: Boolean(options?.reused), params };
      return [];
    },
    run: async () => 0,
  };
  await claimJobs(
    { runner, tables },
    QUEUES.map((queue) => ({ queue, limit: LIMIT })),
    'w',
    Date.now(),
    30_000,
  );
  return caught;
}

function serverCpuMs(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

async function main() {
  await ensureBenchDatabase();
  const variants = [{ name: 'this build (dist/)', statement: await claimStatement(DIST) }];
  if (BASE) variants.push({ name: `base (${path.relative(process.cwd(), BASE)})`, statement: await claimStatement(BASE) });
  await withClient(PG_URL, async (admin) => {
    await admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`);
    for (const step of getMigrations('postgres', { schema: SCHEMA })) for (const statement of step.sql) await admin.query(statement);
    const at = Date.now() - 1000;
    await admin.query(
      `INSERT INTO ${tables.T} (queue, status, data, run_at, max_attempts, created_at, updated_at)
       SELECT ($3::text[])[1 + n % $4], 'pending', '{}', $1, 3, $1, $1 FROM generate_series(1, $2) AS n`,
      [at, TOTAL, QUEUES, QUEUES.length],
    );
    await admin.query(`ANALYZE ${tables.T}`);
  });
  for (const variant of variants) {
    variant.client = new Client({ connectionString: PG_URL });
    await variant.client.connect();
    variant.pid = (await variant.client.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    variant.times = [];
    variant.cpuMs = 0;
  }
  const ratios = variants.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const times = [];
    for (let k = 0; k < variants.length; k++) {
      const index = (k + round) % variants.length;
      const variant = variants[index];
      const params = [...variant.statement.params];
      params[0] = `worker-${index}`;
      params[2] = Date.now();
      params[1] = params[2] + 30_000;
      const query = variant.statement.reused
        ? { name: 'claim', text: variant.statement.sql, values: params }
        : { text: variant.statement.sql, values: params };
      const cpuBefore = serverCpuMs(variant.pid);
      const started = process.hrtime.bigint();
      const { rows } = await variant.client.query(query);
      times[index] = Number(process.hrtime.bigint() - started) / 1e6;
      variant.cpuMs += serverCpuMs(variant.pid) - cpuBefore;
      if (rows.length !== LIMIT * QUEUES.length) throw new Error(`${variant.name} claimed ${rows.length}: raise PG_CLAIM_TOTAL`);
      variant.times.push(times[index]);
    }
    times.forEach((time, index) => ratios[index].push(time / times[0]));
  }
  for (const variant of variants) {
    const [row] = (
      await variant.client.query(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'claim'`,
      )
    ).rows;
    variant.plans = row ? `${row.generic} generic, ${row.custom} custom` : 'not prepared';
    await variant.client.end();
  }
  await withClient(PG_URL, (admin) => admin.query(`DROP SCHEMA IF EXISTS "${SCHEMA}" CASCADE`));

  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(
    `${TOTAL} pending jobs over ${QUEUES.length} queues (ANALYZEd), ${ROUNDS} rounds of one claim of ${LIMIT} per queue per build, alternated\n`,
  );
  console.log('| build | ms per claim (median) | × this build, same rounds (median) | server CPU ms per claim | plans made |');
  console.log('|---|---|---|---|---|');
  variants.forEach((variant, index) =>
    console.log(
      `| ${variant.name} | ${median(variant.times).toFixed(3)} | ${median(ratios[index]).toFixed(3)}× | ${(variant.cpuMs / ROUNDS).toFixed(3)} | ${variant.plans} |`,
    ),
  );
}

// Exits on a failure: the open connections would otherwise keep the process waiting.
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
