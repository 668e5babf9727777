'use strict';
// This library (nestjs-sqlite-queue from ../dist) as a benchmark system.
const { startLibraryApp, supportsDriverOption, loadedDrivers } = require('../lib/library-app');
const { freshDbFile, now, rssSampler, waitFor, sleep, summarizeLatency, readyThenGo } = require('../lib/common');

function moduleOptions(file, driver, extra = {}) {
  const options = { database: file, ...extra };
  if (driver) options.driver = driver;
  return options;
}

/** Enqueue `total` jobs over `queues` with addBulk, then process them all; also times add() one at a time. */
exports.throughput = async ({ tag, driver, queues, total, concurrency, chunk, addOneCount }) => {
  if (driver && !supportsDriverOption()) return { skipped: `the built library has no driver option ('${driver}') yet` };
  const file = freshDbFile(`throughput-${tag}.sqlite`);
  const perQueue = total / queues.length;

  // 1. Enqueue with a producer-only app (processing: false): nothing is claimed yet.
  const producerApp = await startLibraryApp({ options: moduleOptions(file, driver, { processing: false }) });
  let t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      const items = Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ data: { i: done + i } }));
      await producerApp.producer.addBulk(queue, items);
    }
  }
  const bulkMs = now() - t;
  // Paused, so the consumer below boots and opens its file before the clock starts and takes nothing until then.
  for (const queue of queues) await producerApp.admin.pause(queue);
  await producerApp.close();

  // 2. Process: the consumer boots with its queues paused; the clock starts when it resumes them, as BullMQ's starts
  // at worker.run() once its workers are ready.
  let handled = 0;
  const app = await startLibraryApp({
    options: moduleOptions(file, driver),
    queues,
    concurrency,
    handler: () => {
      handled++;
    },
  });
  const rss = rssSampler();
  const cpu = require('../lib/cpu-split').cpuSplit();
  t = now();
  for (const queue of queues) await app.admin.resume(queue);
  await waitFor(() => handled >= total, { what: `${total} handler calls`, timeoutMs: 300_000 });
  let counts;
  await waitFor(async () => (counts = await app.admin.getCounts()).completed >= total, { everyMs: 2, what: 'all completed' });
  const processMs = now() - t;
  const cpuPerJob = cpu.stop(total);
  const rssMiB = rss.stop();
  const drivers = loadedDrivers();
  await app.close();
  if (driver === 'better-sqlite3' && (!drivers.betterSqlite3 || drivers.sqlite3)) {
    return { skipped: `the driver option was accepted but better-sqlite3 was not what ran (${JSON.stringify(drivers)})` };
  }

  // 3. add() one at a time, on a fresh file, producer-only app.
  const addFile = freshDbFile(`add-one-${tag}.sqlite`);
  const addApp = await startLibraryApp({ options: moduleOptions(addFile, driver, { processing: false }) });
  t = now();
  for (let i = 0; i < addOneCount; i++) await addApp.producer.add(queues[0], { i });
  const addMs = now() - t;
  await addApp.close();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: {
      jobs: total,
      ms: processMs,
      rate: (total / processMs) * 1000,
      rssMiB,
      handled,
      completed: counts.completed,
      failed: counts.failed,
      cpuPerJob,
    },
    addOne: { count: addOneCount, ms: addMs, rate: (addOneCount / addMs) * 1000 },
    errors: app.log.errors,
    busy: app.log.busy,
    errorSamples: app.log.samples,
    drivers,
  };
};

/** One job at a time into an idle queue: ms from add() resolving (and from add() called) to the handler starting. */
exports.latency = async ({ tag, driver, count, gapMs, warmup, options = {} }) => {
  if (driver && !supportsDriverOption()) return { skipped: `the built library has no driver option ('${driver}') yet` };
  const file = freshDbFile(`latency-${tag}.sqlite`);
  let started = () => {};
  const app = await startLibraryApp({
    options: moduleOptions(file, driver, options),
    queues: ['latency'],
    concurrency: 1,
    handler: () => started(now()),
  });
  await sleep(200); // let the first claim and lease recovery pass: the queue is idle from here on
  const fromResolved = [];
  const fromCalled = [];
  for (let i = 0; i < warmup + count; i++) {
    const startedAt = new Promise((resolve) => (started = resolve));
    const called = now();
    await app.producer.add('latency', { i });
    const resolved = now();
    const begin = await startedAt;
    if (i >= warmup) {
      fromResolved.push(begin - resolved);
      fromCalled.push(begin - called);
    }
    await sleep(gapMs); // the completion is written and the queue is idle again
  }
  await app.close();
  return summarizeLatency(fromResolved, fromCalled, app.log);
};

// ---- On PostgreSQL (scenarios/postgres.js): forRoot({ postgres: { url, schema } }), schema bench_library. ----

/**
 * Child: drops the schema, boots a producer-only app (it creates the schema), pauses the queues (so consumers can boot
 * before the clock starts and take nothing), times addBulk of every job, then ANALYZEs.
 */
exports.postgresEnqueue = async ({ queues, total, chunk }) => {
  const { PG_URL, SCHEMAS, dropSchemas, analyzeSchema } = require('../lib/postgres');
  await dropSchemas([SCHEMAS.library]);
  const app = await startLibraryApp({ options: { postgres: { url: PG_URL, schema: SCHEMAS.library }, processing: false } });
  const perQueue = total / queues.length;
  const t = now();
  for (const queue of queues) {
    for (let done = 0; done < perQueue; done += chunk) {
      await app.producer.addBulk(
        queue,
        Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ data: { i: done + i } })),
      );
    }
  }
  const ms = now() - t;
  // No consumer runs yet (they boot after this child ends): a queue is known once it holds jobs.
  for (const queue of queues) await app.admin.pause(queue);
  await app.close();
  await analyzeSchema(SCHEMAS.library);
  return { jobs: total, ms, rate: (total / ms) * 1000, errors: app.log.errors };
};

/**
 * Child: boots a consumer app (its queues are paused, so it takes nothing yet), says ready; on "go" resumes the queues
 * (every consumer does, each waking its own poller) and reports its handled count every 10 ms until "stop", then the
 * CPU time it spent between "go" and "stop".
 */
exports.postgresConsume = async ({ queues, concurrency }) => {
  const { PG_URL, SCHEMAS } = require('../lib/postgres');
  let handled = 0;
  const app = await startLibraryApp({
    options: { postgres: { url: PG_URL, schema: SCHEMAS.library } },
    queues,
    concurrency,
    handler: () => void handled++,
  });
  const { stopped } = await readyThenGo();
  const cpuAtGo = process.cpuUsage();
  await Promise.all(queues.map((queue) => app.admin.resume(queue)));
  const progress = setInterval(() => process.send({ type: 'progress', handled }), 10);
  await stopped;
  const cpu = process.cpuUsage(cpuAtGo);
  clearInterval(progress);
  await app.close();
  return { handled, cpuMs: (cpu.user + cpu.system) / 1000, errors: app.log.errors, errorSamples: app.log.samples };
};

// ---- Concurrent single adds (scenarios/concurrent-add.js): SQLite or PostgreSQL, producer-only app. ----

/**
 * Child: a lone add's latency (in turns with the same add without group commit), then `inFlight` callers each
 * awaiting its own add(). `perAdd: true` writes every add with its own statement, as add() did before group
 * commit: the A/B reference of the same build.
 */
exports.concurrentAdd = async ({ tag, driver, postgres, perAdd, sizes }) => {
  const { measureAdds } = require('../lib/add-load');
  let options;
  if (postgres) {
    const { PG_URL, SCHEMAS, dropSchemas } = require('../lib/postgres');
    await dropSchemas([SCHEMAS.library]);
    options = { postgres: { url: PG_URL, schema: SCHEMAS.library }, processing: false };
  } else {
    options = moduleOptions(freshDbFile(`concurrent-add-${tag}.sqlite`), driver, { processing: false });
  }
  const app = await startLibraryApp({ options });
  // The A/B reference: the same add() with group commit taken out, each add its own statement as before group
  // commit, so the two differ in nothing else. `perAdd` runs the whole load that way; otherwise the lone adds
  // alternate between both ways. Internal, not public API: the bench's switch.
  const producer = app.producer;
  // Each add() asks the producer's host for the batch commit of its storage: the switch goes there.
  const host = producer.host;
  const grouped = host.batchCommitFor;
  let ungrouped = perAdd;
  host.batchCommitFor = (storage) =>
    ungrouped ? { add: async (queue, record, at) => (await storage.enqueue(queue, [record], at))[0] } : grouped(storage);
  const add = (i) => producer.add('bench-a', { i });
  const reference = async (i) => {
    ungrouped = true;
    try {
      return await producer.add('bench-a', { i });
    } finally {
      ungrouped = false;
    }
  };
  const result = await measureAdds(add, sizes, perAdd ? undefined : reference);
  const counts = await app.admin.getCounts('bench-a');
  await app.close();
  if (postgres) await require('../lib/postgres').dropSchemas([require('../lib/postgres').SCHEMAS.library]);
  return { ...result, stored: counts.pending, errors: app.log.errors, errorSamples: app.log.samples };
};

// ---- Real handlers (scenarios/real-handlers.js): each job awaits 1-5 ms of I/O. ----

/** Child: bulk-enqueues `total` jobs over `queues`, then processes them with I/O-bound handlers at `concurrency` per queue. */
exports.realHandlers = async ({ tag, postgres, queues, total, concurrency, prefetch }) => {
  const { ioHandler, ioResult } = require('../lib/io-handler');
  let options;
  if (postgres) {
    const { PG_URL, SCHEMAS, dropSchemas } = require('../lib/postgres');
    await dropSchemas([SCHEMAS.library]);
    options = { postgres: { url: PG_URL, schema: SCHEMAS.library } };
  } else {
    options = moduleOptions(freshDbFile(`real-handlers-${tag}.sqlite`), undefined);
  }
  const producerApp = await startLibraryApp({ options: { ...options, processing: false } });
  const perQueue = total / queues.length;
  for (const queue of queues)
    for (let done = 0; done < perQueue; done += 1_000)
      await producerApp.producer.addBulk(
        queue,
        Array.from({ length: Math.min(1_000, perQueue - done) }, (_, i) => ({ data: { i: done + i } })),
      );
  await producerApp.close();
  if (postgres) await require('../lib/postgres').analyzeSchema(require('../lib/postgres').SCHEMAS.library);
  const handler = ioHandler();
  const startedAt = now();
  const app = await startLibraryApp({ options, queues, concurrency, prefetch, handler: handler.handle });
  await waitFor(() => handler.durations.length >= total, { what: `${total} handled`, timeoutMs: 120_000 });
  let counts;
  await waitFor(async () => (counts = await app.admin.getCounts()).completed >= total, { everyMs: 2, what: 'all completed' });
  const endedAt = now();
  await app.close();
  if (postgres) await require('../lib/postgres').dropSchemas([require('../lib/postgres').SCHEMAS.library]);
  return ioResult({
    total,
    startedAt,
    endedAt,
    inFlight: concurrency * queues.length,
    handler,
    extra: { errors: app.log.errors, completed: counts.completed },
  });
};

// ---- Footprint (scenarios/footprint.js): bytes per pending job, and retention keeping the file bounded. ----

/** Child: `count` pending jobs added with addBulk; the SQLite file size (checkpointed) or PostgreSQL relation size per job. */
exports.footprint = async ({ tag, postgres, count }) => {
  const fs = require('node:fs');
  const pg = require('../lib/postgres');
  const { JOBS_TABLE } = require(require('../lib/common').DIST_DIR);
  const file = postgres ? undefined : freshDbFile(`footprint-${tag}.sqlite`);
  const options = postgres
    ? { postgres: { url: pg.PG_URL, schema: pg.SCHEMAS.library }, processing: false }
    : moduleOptions(file, undefined, { processing: false });
  if (postgres) await pg.dropSchemas([pg.SCHEMAS.library]);
  const relationSize = () =>
    pg.withClient(pg.PG_URL, (client) => pg.scalar(client, `SELECT pg_total_relation_size('"${pg.SCHEMAS.library}".${JOBS_TABLE}')`));
  // The empty schema first (SQLite: closed, so the WAL is checkpointed into the file).
  let app = await startLibraryApp({ options });
  await app.close();
  const before = postgres ? await relationSize() : fs.statSync(file).size;
  app = await startLibraryApp({ options });
  for (let done = 0; done < count; done += 1_000)
    await app.producer.addBulk(
      'bench-a',
      Array.from({ length: Math.min(1_000, count - done) }, (_, i) => ({ data: { i: done + i } })),
    );
  await app.close();
  const after = postgres ? await relationSize() : fs.statSync(file).size;
  if (postgres) await pg.dropSchemas([pg.SCHEMAS.library]);
  return { count, bytes: after - before, perJob: (after - before) / count, totalBytes: after };
};

/**
 * Child: `rounds` rounds of `perRound` jobs added and processed with `removeOnComplete: { count: keep }`; the file
 * size (database + WAL) after each round. SQLite reuses the pages deleted rows free, so the file levels off at the
 * size of the live rows plus the kept ones, without VACUUM.
 */
exports.retention = async ({ tag, rounds, perRound, keep, queues }) => {
  const fs = require('node:fs');
  const file = freshDbFile(`retention-${tag}.sqlite`);
  let handled = 0;
  const app = await startLibraryApp({
    options: moduleOptions(file, undefined, { removeOnComplete: { count: keep } }),
    queues,
    concurrency: 50,
    handler: () => void handled++,
  });
  const sizes = [];
  const t = now();
  for (let round = 0; round < rounds; round++) {
    const perQueue = perRound / queues.length;
    for (const queue of queues)
      for (let done = 0; done < perQueue; done += 1_000)
        await app.producer.addBulk(
          queue,
          Array.from({ length: Math.min(1_000, perQueue - done) }, (_, i) => ({ data: { round, i: done + i } })),
        );
    await waitFor(() => handled >= (round + 1) * perRound, { what: `round ${round}`, timeoutMs: 120_000 });
    const counts = await app.admin.getCounts();
    const wal = fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0;
    sizes.push({
      jobs: (round + 1) * perRound,
      fileBytes: fs.statSync(file).size,
      walBytes: wal,
      rows: Object.values(counts).reduce((a, b) => a + b, 0),
    });
  }
  const ms = now() - t;
  await app.close();
  return { rounds, perRound, keep, sizes, ms, errors: app.log.errors };
};

// ---- PostgreSQL add -> start across processes (scenarios/pg-latency.js). ----

/**
 * A clock both processes of scenario 10 read alike: CLOCK_MONOTONIC (process.hrtime), the same for every process of
 * the machine. `performance.timeOrigin + performance.now()` is not: each process fixes its origin at start, and two
 * processes disagreed by up to 5 ms, which made starts seem to come before their add() was called.
 */
const sharedNow = () => Number(process.hrtime.bigint()) / 1e6;

/** Child: a consumer (concurrency 1) that reports each handler start (the shared monotonic clock, µs precision) to the parent. */
exports.pgLatencyConsumer = async () => {
  const { PG_URL, SCHEMAS } = require('../lib/postgres');
  const stop = new Promise((resolve) => process.on('message', (m) => m && m.type === 'stop' && resolve()));
  const app = await startLibraryApp({
    options: { postgres: { url: PG_URL, schema: SCHEMAS.library } },
    queues: ['latency'],
    concurrency: 1,
    handler: (job) => process.send({ type: 'started', i: job.data.i, at: sharedNow() }),
  });
  await sleep(300); // the first claim and lease recovery are behind us
  process.send({ type: 'ready' });
  await stop;
  await app.close();
  return { errors: app.log.errors };
};

/** Child: adds `count` jobs one at a time, `gapMs` apart, from a producer-only process; the shared-clock times of each. */
exports.pgLatencyProducer = async ({ count, gapMs, warmup }) => {
  const { PG_URL, SCHEMAS } = require('../lib/postgres');
  const app = await startLibraryApp({ options: { postgres: { url: PG_URL, schema: SCHEMAS.library }, processing: false } });
  const adds = [];
  for (let i = 0; i < warmup + count; i++) {
    const calledAt = sharedNow();
    await app.producer.add('latency', { i });
    adds.push({ i, calledAt, resolvedAt: sharedNow(), warm: i < warmup });
    await sleep(gapMs);
  }
  await app.close();
  return { adds };
};
