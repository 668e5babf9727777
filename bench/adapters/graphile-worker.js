'use strict';
// graphile-worker 0.17 (0.18 needs Node 22) on the local PostgreSQL, schema bench_graphile of queue_bench.
// The 4 queues are 4 task identifiers (graphile's `queueName` would run each queue's jobs one at a time).
// In the PostgreSQL scenario it runs like the library: a producer child enqueues, then 1, 2 or 4 consumer children
// start on one "go". Each consumer is one runner with the library's in-flight count of one process (4 queues × 50 =
// 200), its documented batching on: a local queue of 200 locked jobs per fetch and batched completions
// (completeJobBatchDelay 0); pool of 10 connections per process, the library's default. A completed job is
// deleted, so "all completed" is an empty jobs table.
const { Pool } = require('pg');
const { run, makeWorkerUtils, Logger } = require('graphile-worker');
const { now, waitFor, readyThenGo } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema, withClient, scalar, openConnections } = require('../lib/postgres');

const POOL_SIZE = 10; // what run() builds from maxPoolSize: 10

/** A Logger that counts errors, keeps the first 5 as samples and echoes the first 3 to stderr. */
function countingLogger() {
  const stats = { errors: 0, samples: [] };
  const logger = new Logger(() => (level, message) => {
    if (level !== 'error') return;
    if (stats.errors++ < 3) console.error(`graphile-worker: ${message}`);
    if (stats.samples.length < 5) stats.samples.push(`error: ${String(message).slice(0, 300)}`);
  });
  return { logger, stats };
}

/** Child: drops the schema, migrate() creates it, times addJobs (graphile's bulk call) of every job, then ANALYZEs. */
exports.postgresEnqueue = async ({ queues, total, chunk }) => {
  await dropSchemas([SCHEMAS.graphile]);
  const { logger, stats } = countingLogger();
  const utils = await makeWorkerUtils({ connectionString: PG_URL, schema: SCHEMAS.graphile, logger });
  await utils.migrate();
  const perQueue = total / queues.length;
  const t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      await utils.addJobs(
        Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ identifier: queue, payload: { i: done + i } })),
      );
    }
  }
  const ms = now() - t;
  await utils.release();
  await analyzeSchema(SCHEMAS.graphile);
  return { jobs: total, ms, rate: (total / ms) * 1000, errors: stats.errors };
};

/**
 * Child: builds the pg.Pool the runner will use (run()'s documented `pgPool` option: the pool run() would build itself
 * from connectionString and maxPoolSize 10), compiles the runner's options and checks graphile-worker's migrations
 * over it (makeWorkerUtils with the same options object), opens its 10 connections and says ready; on "go" starts one
 * runner (concurrency = per-queue concurrency × queues), reports its handled count every 10 ms until "stop", then the
 * CPU time it spent between "go" and "stop" and how long run() took to resolve after "go" (`startMs`).
 *
 * graphile-worker has no documented way to hold jobs back from a runner that uses its local queue, so the runner
 * itself starts on "go", inside the window: the local queue fetches (and locks) a batch as soon as run() creates it,
 * with no flags check (forbiddenFlags, even as a function, are read by each worker's own fetch, and any flags list
 * turns that worker's batching off: one job per query). With its options compiled and no connection left to open,
 * what run() adds on "go" is a migration check on an open connection and its LISTEN.
 */
exports.postgresConsume = async ({ queues, concurrency }) => {
  let handled = 0;
  const task = async () => {
    handled++;
  };
  const { logger, stats } = countingLogger();
  const pgPool = new Pool({ connectionString: PG_URL, max: POOL_SIZE });
  // The error handlers graphile-worker installs on a pool it builds (it asks for them on a pool given to it).
  const poolError = (error) => logger.error(`PostgreSQL client error: ${error.message}`);
  pgPool.on('error', poolError);
  pgPool.on('connect', (client) => client.on('error', poolError));
  const inFlight = concurrency * queues.length;
  const options = {
    pgPool,
    schema: SCHEMAS.graphile,
    logger,
    concurrency: inFlight,
    noHandleSignals: true,
    taskList: Object.fromEntries(queues.map((queue) => [queue, task])),
    preset: { worker: { localQueue: { size: inFlight }, completeJobBatchDelay: 0 } },
  };
  // The same options object as run() below: graphile-worker compiles it once (its preset resolved here, not on "go").
  const utils = await makeWorkerUtils(options);
  await utils.migrate();
  await utils.release();
  await openConnections((sql) => pgPool.query(sql), POOL_SIZE);
  const { stopped } = await readyThenGo();
  const cpuAtGo = process.cpuUsage();
  const goAt = now();
  const runner = await run(options);
  const startMs = now() - goAt;
  const progress = setInterval(() => process.send({ type: 'progress', handled }), 10);
  await stopped;
  const cpu = process.cpuUsage(cpuAtGo);
  clearInterval(progress);
  await runner.stop();
  await pgPool.end();
  return { handled, cpuMs: (cpu.user + cpu.system) / 1000, startMs, errors: stats.errors, errorSamples: stats.samples };
};

/** Child: addJobs of `total` jobs, then one runner (concurrency = per-queue concurrency × queues) with I/O-bound handlers. */
exports.realHandlers = async ({ queues, total, concurrency }) => {
  const { ioHandler, ioResult } = require('../lib/io-handler');
  await dropSchemas([SCHEMAS.graphile]);
  const logger = new Logger(() => () => undefined);
  const shared = { connectionString: PG_URL, schema: SCHEMAS.graphile, logger };
  const utils = await makeWorkerUtils(shared);
  await utils.migrate();
  const perQueue = total / queues.length;
  for (const queue of queues)
    for (let done = 0; done < perQueue; done += 1_000)
      await utils.addJobs(
        Array.from({ length: Math.min(1_000, perQueue - done) }, (_, i) => ({ identifier: queue, payload: { i: done + i } })),
      );
  await utils.release();
  await analyzeSchema(SCHEMAS.graphile);
  const handler = ioHandler();
  const inFlight = concurrency * queues.length;
  const startedAt = now();
  const runner = await run({
    ...shared,
    concurrency: inFlight,
    maxPoolSize: 10,
    noHandleSignals: true,
    taskList: Object.fromEntries(queues.map((queue) => [queue, handler.handle])),
    preset: { worker: { localQueue: { size: inFlight }, completeJobBatchDelay: 0 } },
  });
  await waitFor(() => handler.durations.length >= total, { what: `${total} handled`, timeoutMs: 120_000 });
  const countLeft = `SELECT count(*) FROM "${SCHEMAS.graphile}"._private_jobs`;
  await withClient(PG_URL, (client) => waitFor(async () => (await scalar(client, countLeft)) === 0, { what: 'all completed' }));
  const endedAt = now();
  await runner.stop();
  await dropSchemas([SCHEMAS.graphile]);
  return ioResult({ total, startedAt, endedAt, inFlight, handler });
};

/** Child: PostgreSQL bytes per pending graphile-worker job (its jobs table, indexes and TOAST included). */
exports.footprint = async ({ count }) => {
  await dropSchemas([SCHEMAS.graphile]);
  const utils = await makeWorkerUtils({ connectionString: PG_URL, schema: SCHEMAS.graphile, logger: new Logger(() => () => undefined) });
  await utils.migrate();
  const size = () => withClient(PG_URL, (client) => scalar(client, `SELECT pg_total_relation_size('"${SCHEMAS.graphile}"._private_jobs')`));
  const before = await size();
  for (let done = 0; done < count; done += 1_000)
    await utils.addJobs(
      Array.from({ length: Math.min(1_000, count - done) }, (_, i) => ({ identifier: 'bench-a', payload: { i: done + i } })),
    );
  const after = await size();
  await utils.release();
  await dropSchemas([SCHEMAS.graphile]);
  return { count, bytes: after - before, perJob: (after - before) / count };
};
