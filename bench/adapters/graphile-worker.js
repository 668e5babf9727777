'use strict';
// graphile-worker 0.17 (0.18 needs Node 22) on the local PostgreSQL, schema bench_graphile of queue_bench.
// The 4 queues are 4 task identifiers (graphile's `queueName` would run each queue's jobs one at a time).
// In the PostgreSQL scenario it runs like the library: a producer child enqueues, then 1, 2 or 4 consumer children
// start on one "go". Each consumer is one runner with the library's in-flight count of one process (4 queues × 50 =
// 200), its documented batching on: a local queue of 200 locked jobs per fetch and batched completions
// (completeJobBatchDelay 0); pool of 10 connections per process, the library's default. A completed job is
// deleted, so "all completed" is an empty jobs table.
const { run, makeWorkerUtils, Logger } = require('graphile-worker');
const { now, waitFor, readyThenGo } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema, withClient, scalar } = require('../lib/postgres');

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
 * Child: connects and checks graphile-worker's migrations (its utilities' pool), says ready, starts one runner on "go"
 * (concurrency = per-queue concurrency × queues), reports its handled count every 10 ms until "stop", then the CPU time
 * it spent between "go" and "stop". The runner itself has no "start later": its own pool connects after "go" (a
 * connection to a local server, a few ms).
 */
exports.postgresConsume = async ({ queues, concurrency }) => {
  let handled = 0;
  const task = async () => {
    handled++;
  };
  const { logger, stats } = countingLogger();
  const utils = await makeWorkerUtils({ connectionString: PG_URL, schema: SCHEMAS.graphile, logger });
  await utils.migrate();
  await utils.release();
  const { stopped } = await readyThenGo();
  const cpuAtGo = process.cpuUsage();
  const inFlight = concurrency * queues.length;
  const runner = await run({
    connectionString: PG_URL,
    schema: SCHEMAS.graphile,
    logger,
    concurrency: inFlight,
    maxPoolSize: 10,
    noHandleSignals: true,
    taskList: Object.fromEntries(queues.map((queue) => [queue, task])),
    preset: { worker: { localQueue: { size: inFlight }, completeJobBatchDelay: 0 } },
  });
  const progress = setInterval(() => process.send({ type: 'progress', handled }), 10);
  await stopped;
  const cpu = process.cpuUsage(cpuAtGo);
  clearInterval(progress);
  await runner.stop();
  return { handled, cpuMs: (cpu.user + cpu.system) / 1000, errors: stats.errors, errorSamples: stats.samples };
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
