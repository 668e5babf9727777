'use strict';
// pg-boss 10 (the last major that runs on Node 20) on the local PostgreSQL, schema bench_pgboss of queue_bench.
// One work() per queue with batchSize 50: the handler gets 50 jobs and runs them all at once, so 50 are in flight
// per queue, like the library's concurrency 50. pg-boss 10 waits out pollingIntervalSeconds (at least 0.5 s) after
// every batch, which would cap it at 4 × 50 / 0.5 s = 400 jobs/s here: after a full batch the handler calls
// notifyWorker (its public "skip the interval once" call), so a backlog is drained without pauses.
const PgBoss = require('pg-boss');
const { now, waitFor } = require('../lib/common');
const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema, withClient, scalar, openConnections } = require('../lib/postgres');

const BATCH_SIZE = 50;
const POOL_SIZE = 10; // pg-boss's default `max`: one pg.Pool of 10 connections per instance
const options = () => ({ connectionString: PG_URL, schema: SCHEMAS.pgboss });

exports.throughput = async ({ queues, total, chunk }) => {
  await dropSchemas([SCHEMAS.pgboss]);
  const perQueue = total / queues.length;
  let errors = 0;
  const countError = (error) => {
    if (errors++ < 3) console.error('pg-boss error', error.message);
  };

  // 1. Enqueue with insert() (pg-boss's bulk call) from a producer instance; start() creates the schema first.
  const producer = new PgBoss(options());
  producer.on('error', countError);
  await producer.start();
  for (const queue of queues) await producer.createQueue(queue);
  let t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      await producer.insert(Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ name: queue, data: { i: done + i } })));
    }
  }
  const bulkMs = now() - t;
  await producer.stop({ graceful: false });
  await analyzeSchema(SCHEMAS.pgboss);

  // 2. Process: the consumer instance boots before the clock: start() connects, checks its schema and starts its
  // maintenance, then its pool's 10 connections are opened (through getDb(), its documented handle on that pool), so
  // none connects inside the window. The clock starts at work(), pg-boss's call that starts processing a queue: it
  // does no I/O of its own (it creates a worker whose loop fetches at once), like BullMQ's worker.run(). pg-boss 10 has
  // no pause to boot a worker on a held queue; a worker started before the jobs are sent would put the enqueue inside.
  let handled = 0;
  const boss = new PgBoss(options());
  boss.on('error', countError);
  await boss.start();
  const db = boss.getDb();
  await openConnections((sql) => db.executeSql(sql), POOL_SIZE);
  t = now();
  for (const queue of queues) {
    let id;
    id = await boss.work(queue, { batchSize: BATCH_SIZE, pollingIntervalSeconds: 0.5 }, async (jobs) => {
      handled += jobs.length;
      if (jobs.length === BATCH_SIZE && id) boss.notifyWorker(id);
    });
  }
  await waitFor(() => handled >= total, { what: `${total} handled`, timeoutMs: 300_000 });
  // work() completes a batch without awaiting it: the clock stops once every job is completed in the table.
  const countCompleted = `SELECT count(*) FROM "${SCHEMAS.pgboss}".job WHERE state = 'completed'`;
  let completed = 0;
  await withClient(PG_URL, (client) =>
    waitFor(async () => (completed = await scalar(client, countCompleted)) >= total, { what: 'all completed' }),
  );
  const processMs = now() - t;
  await boss.stop({ graceful: true, wait: true });

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: { jobs: total, ms: processMs, rate: (total / processMs) * 1000, handled, completed },
    errors,
  };
};
