'use strict';
// graphile-worker 0.17 (0.18 needs Node 22) on the local PostgreSQL, schema bench_graphile of queue_bench.
// The 4 queues are 4 task identifiers (graphile's `queueName` would run each queue's jobs one at a time).
// One runner with concurrency 200 (the library's 4 queues × 50 of one process), its documented batching on: a
// local queue of 200 locked jobs per fetch and batched completions (completeJobBatchDelay 0); pool of 10
// connections, the library's default. A completed job is deleted, so "all completed" is an empty jobs table.
const { run, makeWorkerUtils, Logger } = require('graphile-worker');
const { now, waitFor } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema, withClient, scalar } = require('../lib/postgres');

const CONCURRENCY = 200;

exports.throughput = async ({ queues, total, chunk }) => {
  await dropSchemas([SCHEMAS.graphile]);
  const perQueue = total / queues.length;
  let errors = 0;
  const logger = new Logger(() => (level, message) => {
    if (level === 'error' && errors++ < 3) console.error(`graphile-worker: ${message}`);
  });
  const shared = { connectionString: PG_URL, schema: SCHEMAS.graphile, logger };

  // 1. Enqueue with addJobs (graphile's bulk call); migrate() creates the schema first.
  const utils = await makeWorkerUtils(shared);
  await utils.migrate();
  let t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      await utils.addJobs(
        Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ identifier: queue, payload: { i: done + i } })),
      );
    }
  }
  const bulkMs = now() - t;
  await utils.release();
  await analyzeSchema(SCHEMAS.graphile);

  // 2. Process: the clock starts before the runner starts (it checks the migrations, then works).
  let handled = 0;
  const task = async () => {
    handled++;
  };
  t = now();
  const runner = await run({
    ...shared,
    concurrency: CONCURRENCY,
    maxPoolSize: 10,
    noHandleSignals: true,
    taskList: Object.fromEntries(queues.map((queue) => [queue, task])),
    preset: { worker: { localQueue: { size: CONCURRENCY }, completeJobBatchDelay: 0 } },
  });
  await waitFor(() => handled >= total, { what: `${total} handled`, timeoutMs: 300_000 });
  const countLeft = `SELECT count(*) FROM "${SCHEMAS.graphile}"._private_jobs`;
  let left = total;
  await withClient(PG_URL, (client) => waitFor(async () => (left = await scalar(client, countLeft)) === 0, { what: 'all completed' }));
  const processMs = now() - t;
  await runner.stop();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: { jobs: total, ms: processMs, rate: (total / processMs) * 1000, handled, completed: total - left },
    errors,
  };
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
