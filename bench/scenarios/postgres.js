'use strict';
// Scenario 6: the same no-op jobs on the local PostgreSQL server (database queue_bench): this library and
// graphile-worker with 1, 2 and 4 consumer processes (the library 50 per queue per process, each process its own
// Nest application; graphile-worker one runner of 200 per process) next to pg-boss and BullMQ's PostgreSQL backend (one
// process each). Bulk enqueue,
// then end-to-end processing until every job is completed in the database. Skipped, with the reason, when the
// server cannot be reached.
const { DIST_DIR, runChild, repeat, now, waitFor } = require('../lib/common');
const { PG_URL, SCHEMAS, ensureBenchDatabase, dropSchemas, withClient, scalar, serverCpuMs } = require('../lib/postgres');

const CONCURRENCY = 50; // per queue, per consumer process

// Systems run by processesOnce: the adapter's postgresEnqueue/postgresConsume children and the query of how many of
// the `total` jobs enqueued the database holds as completed.
const LIBRARY = {
  label: 'nestjs-sqlite-queue (PostgreSQL)',
  adapter: 'adapters/library.js',
  completedSql: () => `SELECT count(*) FROM "${SCHEMAS.library}".${require(DIST_DIR).JOBS_TABLE} WHERE status = 'completed'`,
};
const GRAPHILE = {
  label: 'graphile-worker',
  adapter: 'adapters/graphile-worker.js',
  // It deletes a job once completed: the completed ones are those no longer in its table.
  completedSql: (total) => `SELECT ${Number(total)} - count(*) FROM "${SCHEMAS.graphile}"._private_jobs`,
};
const SYSTEMS = [
  { id: 'library-1', processes: 1, ...LIBRARY },
  { id: 'library-2', processes: 2, ...LIBRARY },
  { id: 'library-4', processes: 4, ...LIBRARY },
  // One child that enqueues, then times its own processing (its `throughput` export).
  { id: 'pgboss', label: 'pg-boss', processes: 1, adapter: 'adapters/pgboss.js' },
  // BullMQ's PostgreSQL backend is slow enough (130-900 jobs/s measured here) that 50,000 jobs would take minutes per
  // run: it processes a 25th of them (2,000), which gives its rate within the bench's 15-minute budget.
  { id: 'bullmq-pg', label: 'BullMQ (PostgreSQL backend)', processes: 1, adapter: 'adapters/bullmq-postgres.js', share: 25 },
  { id: 'graphile', processes: 1, ...GRAPHILE },
  { id: 'graphile-2', processes: 2, ...GRAPHILE },
  { id: 'graphile-4', processes: 4, ...GRAPHILE },
];

/**
 * One producer child enqueues, then `processes` consumer children boot and connect (the library's with its queues
 * paused, graphile-worker's with its migrations checked and its pool's connections open) and say ready; the clock
 * starts at the common "go" (the library resumes its queues, graphile-worker starts its runner: see its adapter) and
 * runs until the database holds every job as completed. CPU in that window: each consumer's own (process.cpuUsage
 * from "go" to "stop", a few idle polls after the last job included) and the server's sessions of queue_bench (from
 * /proc, read at "go" and at the end).
 */
async function processesOnce({ adapter, completedSql, processes, total, chunk, queues }) {
  const enqueue = await runChild(adapter, 'postgresEnqueue', { queues, total, chunk });
  const countCompleted = completedSql(total);
  return withClient(PG_URL, async (client) => {
    const children = [];
    const handledBy = new Map();
    let ready = 0;
    let t0;
    let serverAtGo;
    let allHandled;
    const handledAll = new Promise((resolve) => (allHandled = resolve));
    const onMessage = (message, child) => {
      if (message.type === 'spawned') children.push(child);
      else if (message.type === 'ready' && ++ready === processes) {
        serverAtGo = serverCpuMs();
        t0 = now();
        children.forEach((c) => c.send({ type: 'go' }));
      } else if (message.type === 'progress') {
        handledBy.set(child.pid, message.handled);
        if ([...handledBy.values()].reduce((a, b) => a + b, 0) >= total) allHandled();
      }
    };
    const consumers = Promise.all(
      Array.from({ length: processes }, () => runChild(adapter, 'postgresConsume', { queues, concurrency: CONCURRENCY }, { onMessage })),
    );
    let completed = 0;
    try {
      await Promise.race([handledAll, consumers]); // a child that dies rejects at once
      await waitFor(async () => (completed = await scalar(client, countCompleted)) >= total, { what: 'all completed', timeoutMs: 60_000 });
    } catch (error) {
      children.forEach((c) => c.kill());
      throw error;
    }
    const ms = now() - t0;
    const serverAtEnd = serverCpuMs();
    children.forEach((c) => c.connected && c.send({ type: 'stop' }));
    const outcomes = await consumers;
    const handled = outcomes.reduce((sum, o) => sum + o.handled, 0);
    return {
      bulkEnqueue: enqueue,
      process: { jobs: total, ms, rate: (total / ms) * 1000, handled, completed },
      cpu: cpuPerJob(total, outcomes, serverAtGo, serverAtEnd),
      duplicates: handled - total,
      errors: enqueue.errors + outcomes.reduce((sum, o) => sum + o.errors, 0),
      errorSamples: outcomes.flatMap((o) => o.errorSamples).slice(0, 5),
      perProcess: outcomes.map((o) => o.handled),
      // graphile-worker's: ms from "go" until its run() resolved, per process (its runner starts inside the window).
      ...(outcomes.every((o) => typeof o.startMs === 'number') && { startMs: outcomes.map((o) => o.startMs) }),
    };
  });
}

/** CPU per job (µs) of the consumers and of the server's queue_bench sessions, and jobs per CPU-second of both. */
function cpuPerJob(total, outcomes, atGo, atEnd) {
  if (outcomes.some((o) => typeof o.cpuMs !== 'number') || !atGo || !atEnd) return null;
  const clientMs = outcomes.reduce((sum, o) => sum + o.cpuMs, 0);
  const serverMs = atEnd.backends - atGo.backends;
  const sharedMs = atEnd.shared - atGo.shared;
  return {
    clientUs: (clientMs * 1000) / total,
    serverUs: (serverMs * 1000) / total,
    sharedUs: (sharedMs * 1000) / total,
    jobsPerCpuSecond: (total / (clientMs + serverMs)) * 1000,
  };
}

async function run({ runs, total, chunk, queues }) {
  let server;
  try {
    server = await ensureBenchDatabase();
  } catch (error) {
    const skipped = `PostgreSQL not reachable on 127.0.0.1:5432 (${String(error.message).split('\n')[0]})`;
    console.log(`postgres: skipped: ${skipped}`);
    return { skipped };
  }
  // BENCH_PG_SYSTEMS=library-2,graphile-2 narrows a probe run to some systems (the full bench runs them all).
  const only = process.env.BENCH_PG_SYSTEMS?.split(',');
  const systems = only ? SYSTEMS.filter((system) => only.includes(system.id)) : SYSTEMS;
  const results = Object.fromEntries(systems.map((system) => [system.id, []]));
  // Interleaved like the throughput scenario: a noisy spell hits every system alike.
  await repeat(runs, async (rep) => {
    for (const system of systems) {
      console.log(`postgres: ${system.label}, ${system.processes} process(es), run ${rep + 1}/${runs}`);
      const args = { queues, total: system.share ? total / system.share : total, chunk };
      const attempt = system.completedSql ? processesOnce({ ...system, ...args }) : runChild(system.adapter, 'throughput', args);
      const result = await attempt.catch((error) => ({ skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}` }));
      results[system.id].push(result);
      if (result.skipped) console.log(`  skipped: ${result.skipped}`);
      else {
        const cpu = result.cpu
          ? `, CPU per job: client ${result.cpu.clientUs.toFixed(1)} µs, server ${result.cpu.serverUs.toFixed(1)} µs (+${result.cpu.sharedUs.toFixed(1)} shared)`
          : '';
        console.log(`  process ${Math.round(result.process.rate)} jobs/s, bulk enqueue ${Math.round(result.bulkEnqueue.rate)}/s${cpu}`);
      }
    }
  });
  await dropSchemas(Object.values(SCHEMAS));
  return {
    server,
    total,
    chunk,
    queues: queues.length,
    concurrency: CONCURRENCY,
    systems: systems.map(({ id, label, processes }) => ({ id, label, processes })),
    results,
  };
}

module.exports = { run };
