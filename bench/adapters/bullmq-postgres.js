'use strict';
// BullMQ 6 with its PostgreSQL backend (`createPostgresBackend`, the same Queue/Worker API as on Redis) on the local
// server, schema bench_bullmq of queue_bench, dropped before every run. Each Queue and Worker gets the backend factory
// as its third (Queue) or fourth (Worker) constructor argument and a connection config `{ connectionString, schema }`:
// BullMQ then builds its own pg.Pool (node-postgres' default of 10 connections) plus one LISTEN connection per
// instance. `migrate: true` lets the first instance create BullMQ's tables (its migrations are off by default).
const { Queue, Worker, createPostgresBackend } = require('bullmq');
const { now, waitFor } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema } = require('../lib/postgres');

const connection = () => ({ connectionString: PG_URL, schema: SCHEMAS.bullmq, migrate: true });
const queueOf = (name) => new Queue(name, { connection: connection() }, createPostgresBackend);
const workerOf = (name, handler, options) =>
  new Worker(name, handler, { connection: connection(), autorun: false, ...options }, createPostgresBackend);

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

  let handled = 0;
  let errors = 0;
  t = now();
  const workers = queues.map((name) => {
    const worker = workerOf(name, async () => void handled++, { concurrency });
    worker.on('failed', () => errors++);
    worker.on('error', (error) => {
      if (errors++ < 3) console.error('bullmq (postgres) worker error', error.message);
    });
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
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
