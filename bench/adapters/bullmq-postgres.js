'use strict';
// BullMQ 6 with its PostgreSQL backend (`createPostgresBackend`, the same Queue/Worker API as on Redis) on the local
// server, schema bench_bullmq of queue_bench, dropped before every run. Each Queue and Worker gets the backend factory
// as its third (Queue) or fourth (Worker) constructor argument and a connection config `{ connectionString, schema }`:
// BullMQ then builds its own pg.Pool (node-postgres' default of 10 connections) plus one LISTEN connection per
// instance. `migrate: true` lets the first instance create BullMQ's tables (its migrations are off by default).
const { Queue, Worker, createPostgresBackend } = require('bullmq');
const { now, waitFor } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema, openConnections } = require('../lib/postgres');

const POOL_SIZE = 10; // node-postgres' default `max`, the size of the pg.Pool BullMQ builds for each Worker

const connection = () => ({ connectionString: PG_URL, schema: SCHEMAS.bullmq, migrate: true });
const queueOf = (name) => new Queue(name, { connection: connection() }, createPostgresBackend);
const workerOf = (name, handler, options) =>
  new Worker(name, handler, { connection: connection(), autorun: false, ...options }, createPostgresBackend);

/** Opens the connections of the pg.Pool that a Worker's PostgreSQL backend built (BullMQ 6.7's internal fields). */
async function warmPool(worker) {
  const pool = worker.backend?.connection?.pool;
  if (!pool || typeof pool.query !== 'function') throw new Error("no pg.Pool at worker.backend.connection.pool: BullMQ's internals moved");
  await openConnections((sql) => pool.query(sql), POOL_SIZE);
}

async function enqueue(producers, perQueue, chunk) {
  for (const queue of producers)
    for (let done = 0; done < perQueue; done += chunk)
      await queue.addBulk(Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ name: 'job', data: { i: done + i } })));
}

/** Scenario 6: addBulk of `total` jobs, ANALYZE, then workers at `concurrency` per queue until all are completed. */
exports.throughput = async ({ queues, total, chunk, concurrency = 50 }) => {
  await dropSchemas([SCHEMAS.bullmq]);
  const perQueue = total / queues.length;
  const producers = queues.map(queueOf);
  await Promise.all(producers.map((queue) => queue.waitUntilReady()));
  let t = now();
  await enqueue(producers, perQueue, chunk);
  const bulkMs = now() - t;
  await analyzeSchema(SCHEMAS.bullmq);

  // The workers boot before the clock (autorun: false): waitUntilReady() checks the schema and opens the LISTEN
  // client, then each worker's pool opens its 10 connections, so none connects inside the window. BullMQ has no
  // public handle on that pool: the warm-up reaches it through the backend the Worker built (internal fields, used for
  // nothing else). The clock starts at worker.run(), BullMQ's documented start of processing for a worker made with
  // autorun: false, as on Redis in scenario 1.
  let handled = 0;
  let errors = 0;
  const workers = queues.map((name) => {
    const worker = workerOf(name, async () => void handled++, { concurrency });
    worker.on('failed', () => errors++);
    worker.on('error', (error) => {
      if (errors++ < 3) console.error('bullmq (postgres) worker error', error.message);
    });
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  await Promise.all(workers.map(warmPool));
  t = now();
  workers.forEach((worker) => void worker.run());
  let completed = 0;
  await waitFor(
    async () => {
      const counts = await Promise.all(producers.map((queue) => queue.getJobCounts('completed')));
      completed = counts.reduce((sum, c) => sum + c.completed, 0);
      return completed >= total;
    },
    { what: `${total} completed`, timeoutMs: 600_000, everyMs: 100 },
  );
  const processMs = now() - t;
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(producers.map((queue) => queue.close()));
  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: { jobs: total, ms: processMs, rate: (total / processMs) * 1000, handled, completed },
    errors,
  };
};

/** Scenario 7: a lone add's latency, then `inFlight` callers each awaiting its own `Queue.add()`. */
exports.concurrentAdd = async ({ sizes }) => {
  const { measureAdds } = require('../lib/add-load');
  await dropSchemas([SCHEMAS.bullmq]);
  const queue = queueOf('bench-a');
  await queue.waitUntilReady();
  const result = await measureAdds((i) => queue.add('job', { i }), sizes);
  const stored = await queue.count();
  await queue.close();
  return { ...result, stored };
};

/** Scenario 8: addBulk of `total` jobs over `queues`, then workers at `concurrency` per queue with I/O-bound handlers. */
exports.realHandlers = async ({ queues, total, concurrency }) => {
  const { ioHandler, ioResult } = require('../lib/io-handler');
  await dropSchemas([SCHEMAS.bullmq]);
  const producers = queues.map(queueOf);
  await Promise.all(producers.map((queue) => queue.waitUntilReady()));
  await enqueue(producers, total / queues.length, 1_000);
  await analyzeSchema(SCHEMAS.bullmq);
  const handler = ioHandler();
  let completed = 0;
  const workers = queues.map((name) => {
    const worker = workerOf(name, handler.handle, { concurrency });
    worker.on('completed', () => completed++);
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const startedAt = now();
  workers.forEach((worker) => void worker.run());
  await waitFor(() => completed >= total, { what: `${total} completed`, timeoutMs: 300_000 });
  const endedAt = now();
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(producers.map((queue) => queue.close()));
  return ioResult({ total, startedAt, endedAt, inFlight: concurrency * queues.length, handler, extra: { completed } });
};
