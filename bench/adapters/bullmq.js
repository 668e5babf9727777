'use strict';
// BullMQ on the local Redis (127.0.0.1:6379), database index 7 only: it is flushed before each run.
const { Queue, Worker } = require('bullmq');
const IORedis = require('ioredis');
const { now, rssSampler, waitFor, sleep, summarizeLatency } = require('../lib/common');

const REDIS = { host: '127.0.0.1', port: 6379, db: 7 };
const connection = () => ({ ...REDIS, maxRetriesPerRequest: null });

/** Empties database index 7, and nothing else. */
async function flushBenchDb() {
  const redis = new IORedis({ ...REDIS, lazyConnect: true });
  await redis.connect();
  await redis.select(REDIS.db);
  await redis.flushdb();
  await redis.quit();
}
exports.flushBenchDb = flushBenchDb;

exports.throughput = async ({ queues, total, concurrency, chunk, addOneCount }) => {
  await flushBenchDb();
  const perQueue = total / queues.length;
  const producers = queues.map((name) => new Queue(name, { connection: connection() }));
  await Promise.all(producers.map((queue) => queue.waitUntilReady()));

  let t = now();
  for (const queue of producers) {
    for (let done = 0; done < perQueue; done += chunk) {
      const items = Array.from({ length: Math.min(chunk, perQueue - done) }, (_, i) => ({ name: 'job', data: { i: done + i } }));
      await queue.addBulk(items);
    }
  }
  const bulkMs = now() - t;

  let completed = 0;
  let failed = 0;
  const workers = queues.map((name) => {
    const worker = new Worker(name, async () => undefined, { connection: connection(), concurrency, autorun: false });
    worker.on('completed', () => completed++);
    worker.on('failed', () => failed++);
    worker.on('error', (error) => console.error('worker error', error.message));
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const rss = rssSampler();
  const cpu = require('../lib/cpu-split').cpuSplit();
  const redisAtStart = redisServerCpuMs();
  t = now();
  workers.forEach((worker) => void worker.run());
  await waitFor(() => completed + failed >= total, { what: `${total} completed`, timeoutMs: 300_000 });
  const processMs = now() - t;
  const redisAtEnd = redisServerCpuMs();
  const cpuPerJob = cpu.stop(total);
  if (cpuPerJob && redisAtStart !== null && redisAtEnd !== null) cpuPerJob.serverUs = ((redisAtEnd - redisAtStart) * 1000) / total;
  const rssMiB = rss.stop();
  const counts = await Promise.all(producers.map((queue) => queue.getJobCounts('completed', 'failed')));
  await Promise.all(workers.map((worker) => worker.close()));

  const [first] = producers;
  t = now();
  for (let i = 0; i < addOneCount; i++) await first.add('job', { i });
  const addMs = now() - t;
  await Promise.all(producers.map((queue) => queue.close()));
  await flushBenchDb();

  return {
    bulkEnqueue: { jobs: total, ms: bulkMs, rate: (total / bulkMs) * 1000 },
    process: {
      jobs: total,
      ms: processMs,
      rate: (total / processMs) * 1000,
      rssMiB,
      handled: completed,
      completed: counts.reduce((sum, c) => sum + c.completed, 0),
      failed: counts.reduce((sum, c) => sum + c.failed, 0),
      cpuPerJob,
    },
    addOne: { count: addOneCount, ms: addMs, rate: (addOneCount / addMs) * 1000 },
    errors: failed,
  };
};

/** CPU time (user + system, ms) of the local redis-server so far, from /proc; null when there is none to read. */
function redisServerCpuMs() {
  const fs = require('node:fs');
  try {
    for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let stat;
      try {
        stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue;
      }
      if (!stat.includes('(redis-server)')) continue;
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    }
  } catch {
    // no /proc
  }
  return null;
}

exports.latency = async ({ count, gapMs, warmup }) => {
  await flushBenchDb();
  const queue = new Queue('latency', { connection: connection() });
  let started = () => {};
  const worker = new Worker('latency', async () => started(now()), { connection: connection(), concurrency: 1 });
  await Promise.all([queue.waitUntilReady(), worker.waitUntilReady()]);
  await sleep(200);
  const fromResolved = [];
  const fromCalled = [];
  for (let i = 0; i < warmup + count; i++) {
    const startedAt = new Promise((resolve) => (started = resolve));
    const called = now();
    await queue.add('job', { i });
    const resolved = now();
    const begin = await startedAt;
    if (i >= warmup) {
      fromResolved.push(begin - resolved);
      fromCalled.push(begin - called);
    }
    await sleep(gapMs);
  }
  await worker.close();
  await queue.close();
  await flushBenchDb();
  return summarizeLatency(fromResolved, fromCalled);
};

/** Child: a lone add's latency, then `inFlight` callers each awaiting its own `Queue.add()`. */
exports.concurrentAdd = async ({ sizes }) => {
  const { measureAdds } = require('../lib/add-load');
  await flushBenchDb();
  const queue = new Queue('bench-a', { connection: connection() });
  await queue.waitUntilReady();
  const result = await measureAdds((i) => queue.add('job', { i }), sizes);
  const stored = await queue.count();
  await queue.close();
  await flushBenchDb();
  return { ...result, stored };
};

/** Child: addBulk of `total` jobs over `queues`, then workers at `concurrency` per queue with I/O-bound handlers. */
exports.realHandlers = async ({ queues, total, concurrency }) => {
  const { ioHandler, ioResult } = require('../lib/io-handler');
  await flushBenchDb();
  const perQueue = total / queues.length;
  const producers = queues.map((name) => new Queue(name, { connection: connection() }));
  for (const queue of producers)
    for (let done = 0; done < perQueue; done += 1_000)
      await queue.addBulk(Array.from({ length: Math.min(1_000, perQueue - done) }, (_, i) => ({ name: 'job', data: { i: done + i } })));
  const handler = ioHandler();
  let completed = 0;
  const workers = queues.map((name) => {
    const worker = new Worker(name, handler.handle, { connection: connection(), concurrency, autorun: false });
    worker.on('completed', () => completed++);
    return worker;
  });
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  const startedAt = now();
  workers.forEach((worker) => void worker.run());
  await waitFor(() => completed >= total, { what: `${total} completed`, timeoutMs: 120_000 });
  const endedAt = now();
  await Promise.all(workers.map((worker) => worker.close()));
  await Promise.all(producers.map((queue) => queue.close()));
  await flushBenchDb();
  return ioResult({ total, startedAt, endedAt, inFlight: concurrency * queues.length, handler, extra: { completed } });
};

/**
 * Child: Redis memory per pending BullMQ job. `used_memory` is instance-wide (other clients may write meanwhile), so
 * it is cross-checked with MEMORY USAGE of the job hashes (sampled) and of the wait list, which count this queue only.
 */
exports.footprint = async ({ count }) => {
  await flushBenchDb();
  const redis = new IORedis({ ...REDIS });
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))[1]);
  const queue = new Queue('bench-a', { connection: connection() });
  await queue.waitUntilReady();
  const before = await usedMemory();
  for (let done = 0; done < count; done += 1_000)
    await queue.addBulk(Array.from({ length: Math.min(1_000, count - done) }, (_, i) => ({ name: 'job', data: { i: done + i } })));
  const after = await usedMemory();
  const sample = [];
  for (let id = 1; id <= count; id += Math.max(1, Math.floor(count / 200)))
    sample.push(Number(await redis.memory('USAGE', `bull:bench-a:${id}`)));
  const hashBytes = sample.reduce((a, b) => a + b, 0) / sample.length;
  const listBytes = Number(await redis.memory('USAGE', 'bull:bench-a:wait'));
  await queue.close();
  await redis.quit();
  await flushBenchDb();
  return { count, perJob: (after - before) / count, perJobKeys: hashBytes + listBytes / count, hashBytes, listBytes };
};
