'use strict';
// Where 2 and 4 consumer processes on PostgreSQL spend work that 1 does not. Scenario 6's shape
// (50,000 no-op jobs over 4 queues, enqueued in bulk and ANALYZEd, then 1, 2 or 4 loaded consumer processes started
// on one "go"), for the library and graphile-worker, interleaved run by run, with per-job figures beside the rate:
// - client side, in each consumer: statements by kind (counted where node-postgres sends them), rows per claim,
//   the process's CPU, and the time from "go" to its first claimed job (boot);
// - server side: the CPU of the PostgreSQL backends of the consumers (/proc/<pid>/stat of every client backend of
//   queue_bench, read while the consumers are still connected, so each backend's whole life is the run's),
//   transactions of queue_bench (pg_stat_database), and for the library the entries its claim walks read in the claim
//   index (pg_stat_user_indexes: SKIP LOCKED rows of other processes, and dead entries of claimed rows, are read too).
//
//   node bench/pg-scaling.js                 (PG_SCALING_RUNS=3, PG_SCALING_TOTAL=50000,
//                                             PG_SCALING_SYSTEMS=library-1,library-2,library-4,graphile-1,graphile-2,graphile-4)
//   BENCH_DIST_DIR=dist-base ...             the library of another build; PG_SCALING_BASE_DIST=dist-base adds it as
//                                             base-1, base-2, base-4 beside the current build, interleaved
//
// Prints a table per system (medians of the runs) for bench/RESULTS.md's profile notes.
const fs = require('node:fs');
const path = require('node:path');
const { runChild, repeat, now, waitFor, median, sleep, ROOT_DIR } = require('./lib/common');
const { PG_URL, SCHEMAS, ensureBenchDatabase, dropSchemas, withClient, scalar } = require('./lib/postgres');

const CONCURRENCY = 50;
const QUEUES = ['bench-a', 'bench-b', 'bench-c', 'bench-d'];
const CLK_TCK = 100; // /proc/<pid>/stat ticks per second on Linux

/** Patches node-postgres's Client.query of every `pg` this process can load, counting statements by kind. */
function countStatements() {
  const stats = {
    claim: 0,
    claimRows: 0,
    emptyClaims: 0,
    complete: 0,
    completeRows: 0,
    renewedRows: 0,
    other: 0,
    others: {},
    firstClaimAt: null,
  };
  const seen = new Set();
  for (const from of [ROOT_DIR, __dirname]) {
    let pg;
    try {
      pg = require(require.resolve('pg', { paths: [from] }));
    } catch {
      continue;
    }
    const proto = pg.Client.prototype;
    if (seen.has(proto)) continue;
    seen.add(proto);
    const query = proto.query;
    proto.query = function (config, values, callback) {
      const text = typeof config === 'string' ? config : config && config.text;
      if (typeof text !== 'string') return query.call(this, config, values, callback);
      // The library marks its claim and completion; graphile-worker's are its get_jobs and its batched delete (an
      // unnest of the ids, or a PREPARE and one EXECUTE per job).
      const kind =
        text.includes('/* claim */') || text.startsWith('with j as (')
          ? 'claim'
          : text.includes('/* complete */') || /^delete from \S+\._private_jobs as jobs\s+using unnest|^prepare gwcj /.test(text)
            ? 'complete'
            : 'other';
      stats[kind]++;
      if (kind === 'other') {
        const key = text.replace(/\s+/g, ' ').trim().slice(0, 70);
        stats.others[key] = (stats.others[key] || 0) + 1;
      }
      const note = (result) => {
        const rows = result && typeof result.rowCount === 'number' ? result.rowCount : 0;
        if (kind === 'claim') {
          stats.claimRows += rows;
          if (rows === 0) stats.emptyClaims++;
          else if (stats.firstClaimAt === null) {
            stats.firstClaimAt = now();
            stats.bootCpu = process.cpuUsage();
          }
        } else if (kind === 'complete') {
          // The library's completion answers with a count (one row): its jobs are its ids array ($2).
          const params = Array.isArray(values) ? values : config && config.values;
          // graphile-worker's manual form: one EXECUTE per job.
          const executes = text.startsWith('prepare gwcj ') ? text.split('execute gwcj(').length - 1 : null;
          stats.completeRows += executes ?? (text.includes('/* complete') && Array.isArray(params?.[1]) ? params[1].length : rows);
        } else if (/SET lease_until = \$1/.test(text)) stats.renewedRows += rows;
      };
      if (typeof values === 'function') [callback, values] = [values, undefined];
      if (typeof callback === 'function') {
        return query.call(this, config, values, (error, result) => {
          if (!error) note(result);
          callback(error, result);
        });
      }
      const result = query.call(this, config, values);
      if (result && typeof result.then === 'function') result.then(note, () => undefined);
      return result;
    };
  }
  return stats;
}

/** Child: a consumer of `adapter` (postgresConsume) with its statements counted, its CPU and its boot timed. */
exports.consume = async ({ adapter, queues, concurrency }) => {
  const stats = countStatements();
  let goAt = null;
  let cpu0 = null;
  // CPU from "go" on, as the clock: loading the modules before "ready" is not timed.
  process.on('message', (m) => {
    if (m && m.type === 'go' && goAt === null) [goAt, cpu0] = [now(), process.cpuUsage()];
  });
  const result = await require(path.join(__dirname, adapter)).postgresConsume({ queues, concurrency });
  const cpu = process.cpuUsage(cpu0);
  return {
    ...result,
    stats,
    cpuMs: (cpu.user + cpu.system) / 1000,
    bootMs: stats.firstClaimAt === null || goAt === null ? null : stats.firstClaimAt - goAt,
    bootCpuMs: stats.bootCpu ? (stats.bootCpu.user + stats.bootCpu.system - cpu0.user - cpu0.system) / 1000 : null,
  };
};

/** Ticks of CPU (user + system) of a process from /proc, or 0 when it is gone. */
function ticksOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the whole line)
  } catch {
    return 0;
  }
}

async function databaseCounters(client) {
  const { rows } = await client.query(
    'SELECT xact_commit::bigint AS xact, tup_returned::bigint AS returned, tup_fetched::bigint AS fetched, blks_hit::bigint AS hit FROM pg_stat_database WHERE datname = current_database()',
  );
  return Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
}

/**
 * Samples what the consumers' backends are doing (state and wait event) every 5 ms on a connection of its own, until
 * `stop()`, which returns the share of samples per state/wait (PG_SCALING_WAITS=1; the sampling costs the server a
 * little, alike for every system).
 */
function sampleWaits() {
  const { Client } = require('pg');
  const client = new Client({ connectionString: PG_URL });
  const counts = {};
  let samples = 0;
  let stopped = false;
  const loop = (async () => {
    await client.connect();
    while (!stopped) {
      const { rows } = await client.query(
        "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%'",
      );
      for (const row of rows) {
        const key = row.state === 'active' ? `active ${row.wait_event_type ?? 'CPU'}:${row.wait_event ?? ''}` : String(row.state);
        counts[key] = (counts[key] || 0) + 1;
        samples++;
      }
      await sleep(5);
    }
    await client.end();
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return Object.fromEntries(
        Object.entries(counts)
          .sort((a, b) => b[1] - a[1])
          .map(([key, n]) => [key, Math.round((n / Math.max(1, samples)) * 1000) / 10]),
      );
    },
  };
}

const SYSTEMS = {
  library: {
    adapter: 'adapters/library.js',
    completedSql: () => `SELECT count(*) FROM "${SCHEMAS.library}".nest_queue_jobs WHERE status = 'completed'`,
    claimIndex: `${SCHEMAS.library}.nest_queue_jobs_claim`,
  },
  graphile: {
    adapter: 'adapters/graphile-worker.js',
    completedSql: (total) => `SELECT ${Number(total)} - count(*) FROM "${SCHEMAS.graphile}"._private_jobs`,
  },
};

async function runOnce({ system, processes, total, env }) {
  const def = SYSTEMS[system];
  const childEnv = env ? { env: { ...process.env, ...env } } : {};
  await runChild(def.adapter, 'postgresEnqueue', { queues: QUEUES, total, chunk: 1000 }, childEnv);
  return withClient(PG_URL, async (client) => {
    const before = await databaseCounters(client);
    const children = [];
    const handledBy = new Map();
    let ready = 0;
    let t0;
    let allHandled;
    const handledAll = new Promise((resolve) => (allHandled = resolve));
    const onMessage = (message, child) => {
      if (message.type === 'spawned') children.push(child);
      else if (message.type === 'ready' && ++ready === processes) {
        t0 = now();
        children.forEach((c) => c.send({ type: 'go' }));
      } else if (message.type === 'progress') {
        handledBy.set(child.pid, message.handled);
        if ([...handledBy.values()].reduce((a, b) => a + b, 0) >= total) allHandled();
      }
    };
    const consumers = Promise.all(
      Array.from({ length: processes }, () =>
        runChild(
          'pg-scaling.js',
          'consume',
          { adapter: def.adapter, queues: QUEUES, concurrency: CONCURRENCY },
          { onMessage, ...childEnv },
        ),
      ),
    );
    const countCompleted = def.completedSql(total);
    const waits = process.env.PG_SCALING_WAITS ? sampleWaits() : null;
    await Promise.race([handledAll, consumers]);
    await waitFor(async () => (await scalar(client, countCompleted)) >= total, { what: 'all completed', timeoutMs: 60_000 });
    const ms = now() - t0;
    // Still connected: every client backend of the run is alive, and its whole life was the run.
    const { rows: backends } = await client.query(
      "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    const backendTicks = backends.map(({ pid }) => ticksOf(pid)).sort((a, b) => b - a);
    const serverTicks = backendTicks.reduce((sum, ticks) => sum + ticks, 0);
    const waitCounts = waits ? await waits.stop() : null;
    children.forEach((c) => c.connected && c.send({ type: 'stop' }));
    const outcomes = await consumers;
    // The backends flush their statistics as they exit: wait until they are gone.
    await waitFor(
      async () =>
        (await scalar(
          client,
          "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
        )) === 0,
      { what: 'backends gone', timeoutMs: 10_000 },
    );
    await sleep(50);
    const after = await databaseCounters(client);
    let index = null;
    if (def.claimIndex) {
      const { rows } = await client.query(
        'SELECT idx_scan::bigint AS scans, idx_tup_read::bigint AS read, idx_tup_fetch::bigint AS fetched FROM pg_stat_user_indexes WHERE schemaname = $1 AND indexrelname = $2',
        def.claimIndex.split('.'),
      );
      index = rows[0] ? Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)])) : null;
    }
    const sum = (f) => outcomes.reduce((s, o) => s + f(o), 0);
    const perK = (n) => (n / total) * 1000;
    return {
      rate: (total / ms) * 1000,
      handled: sum((o) => o.handled),
      errors: sum((o) => o.errors),
      bootMs: median(outcomes.map((o) => o.bootMs)),
      bootMaxMs: Math.max(...outcomes.map((o) => o.bootMs ?? NaN)),
      clientCpuUsPerJob: (sum((o) => o.cpuMs) * 1000) / total,
      bootCpuMs: median(outcomes.map((o) => o.bootCpuMs)),
      serverCpuUsPerJob: ((serverTicks / CLK_TCK) * 1e6) / total,
      claimsPerK: perK(sum((o) => o.stats.claim)),
      emptyClaimsPerK: perK(sum((o) => o.stats.emptyClaims)),
      rowsPerClaim:
        sum((o) => o.stats.claimRows) /
        Math.max(
          1,
          sum((o) => o.stats.claim - o.stats.emptyClaims),
        ),
      completesPerK: perK(sum((o) => o.stats.complete)),
      rowsPerComplete:
        sum((o) => o.stats.completeRows) /
        Math.max(
          1,
          sum((o) => o.stats.complete),
        ),
      othersPerK: perK(sum((o) => o.stats.other)),
      renewedPerK: perK(sum((o) => o.stats.renewedRows)),
      xactPerK: perK(after.xact - before.xact),
      claimIndexReadPerJob: index ? index.read / total : null,
      claimIndexScansPerK: index ? perK(index.scans) : null,
      perProcess: outcomes.map((o) => o.handled),
      others: outcomes.map((o) => o.stats.others),
      waits: waitCounts,
      backends: backendTicks.length,
      backendMs: backendTicks.map((ticks) => (ticks * 1000) / CLK_TCK),
    };
  });
}

const COLUMNS = [
  ['rate', 'jobs/s', 0],
  ['bootMs', 'go → 1st claim ms (median)', 0],
  ['bootCpuMs', 'CPU to 1st claim ms/process', 0],
  ['clientCpuUsPerJob', 'client CPU µs/job', 1],
  ['serverCpuUsPerJob', 'server CPU µs/job', 1],
  ['claimsPerK', 'claims /1k jobs', 1],
  ['emptyClaimsPerK', 'empty claims /1k', 1],
  ['rowsPerClaim', 'rows/claim', 0],
  ['completesPerK', 'completions /1k', 1],
  ['rowsPerComplete', 'rows/completion', 0],
  ['othersPerK', 'other stmts /1k', 1],
  ['renewedPerK', 'leases renewed /1k jobs', 0],
  ['xactPerK', 'server xacts /1k', 1],
  ['claimIndexReadPerJob', 'claim index entries read/job', 1],
];

async function main() {
  const runs = Number(process.env.PG_SCALING_RUNS || 3);
  const total = Number(process.env.PG_SCALING_TOTAL || 50_000);
  const ids = (process.env.PG_SCALING_SYSTEMS || 'library-1,library-2,library-4,graphile-1,graphile-2,graphile-4').split(',');
  const baseDist = process.env.PG_SCALING_BASE_DIST;
  const configs = ids.map((id) => {
    const [system, n] = id.split('-');
    return { id, system, processes: Number(n) };
  });
  if (baseDist) {
    for (const n of [1, 2, 4]) {
      if (ids.includes(`library-${n}`))
        configs.push({ id: `base-${n}`, system: 'library', processes: n, env: { BENCH_DIST_DIR: baseDist } });
    }
  }
  await ensureBenchDatabase();
  const results = Object.fromEntries(configs.map((c) => [c.id, []]));
  await repeat(runs, async (rep) => {
    // Every other run in the opposite order: whichever system runs first after a fill pays for what the last run left
    // (its dropped schema's cleanup, a checkpoint), so a fixed order would measure the order too.
    for (const config of rep % 2 === 0 ? configs : [...configs].reverse()) {
      const result = await runOnce({ ...config, total }).catch((error) => ({ failed: String(error.message).slice(0, 300) }));
      results[config.id].push(result);
      if (result.failed) console.log(`${config.id} run ${rep + 1}: failed: ${result.failed}`);
      else
        console.log(
          `${config.id} run ${rep + 1}: ${Math.round(result.rate)} jobs/s, boot ${Math.round(result.bootMs)} ms, client ${result.clientCpuUsPerJob.toFixed(1)} µs/job, ` +
            `server ${result.serverCpuUsPerJob.toFixed(1)} µs/job, ${result.claimsPerK.toFixed(1)} claims/1k (${Math.round(result.rowsPerClaim)} rows), ` +
            `${result.completesPerK.toFixed(1)} completions/1k, ${result.othersPerK.toFixed(1)} others/1k, per process ${result.perProcess.join('/')}`,
        );
    }
  });
  await dropSchemas([SCHEMAS.library, SCHEMAS.graphile]);
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log(`\n${total} jobs, ${runs} runs, medians\n`);
  console.log(line(['system', ...COLUMNS.map(([, label]) => label)]));
  console.log(line(['---', ...COLUMNS.map(() => '---')]));
  for (const config of configs) {
    const ok = results[config.id].filter((r) => !r.failed);
    console.log(
      line([
        config.id,
        ...COLUMNS.map(([key, , digits]) => {
          const value = median(ok.map((r) => r[key]));
          return Number.isFinite(value) ? value.toFixed(digits) : '';
        }),
      ]),
    );
  }
  for (const config of configs) {
    const waits = results[config.id].filter((r) => r.waits).map((r) => r.waits);
    if (waits.length > 0) console.log(`${config.id} waits (% of backend samples, run 1): ${JSON.stringify(waits[0])}`);
  }
  fs.mkdirSync(path.join(__dirname, '.data'), { recursive: true });
  fs.writeFileSync(path.join(__dirname, '.data', 'pg-scaling.json'), JSON.stringify(results, null, 2));
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}
