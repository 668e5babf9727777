'use strict';
// Scenario 10: add() -> handler start across OS processes on PostgreSQL. A producer-only process adds one job at a
// time (gapMs apart) while a consumer process (concurrency 1) handles them: the consumer learns of each job through
// LISTEN/NOTIFY (the enqueue statement notifies), not through its poll. Times are readings of the machine's
// monotonic clock (process.hrtime in both processes: one clock for every process, where each process's
// performance.timeOrigin differs by milliseconds).
const { runChild, repeat, percentile } = require('../lib/common');
const { ensureBenchDatabase, dropSchemas, SCHEMAS } = require('../lib/postgres');

async function once({ count, gapMs, warmup }) {
  await dropSchemas([SCHEMAS.library]);
  const started = new Map();
  let consumer;
  let ready;
  const readyPromise = new Promise((resolve) => (ready = resolve));
  const consumerDone = runChild(
    'adapters/library.js',
    'pgLatencyConsumer',
    {},
    {
      onMessage: (message, child) => {
        if (message.type === 'spawned') consumer = child;
        else if (message.type === 'ready') ready();
        else if (message.type === 'started') started.set(message.i, message.at);
      },
    },
  );
  await Promise.race([readyPromise, consumerDone]);
  const { adds } = await runChild('adapters/library.js', 'pgLatencyProducer', { count, gapMs, warmup });
  const deadline = Date.now() + 5_000;
  while (started.size < adds.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  consumer.send({ type: 'stop' });
  const { errors } = await consumerDone;
  const measured = adds.filter((add) => !add.warm && started.has(add.i));
  const fromCalled = measured.map((add) => started.get(add.i) - add.calledAt);
  const fromResolved = measured.map((add) => started.get(add.i) - add.resolvedAt);
  const stats = (values) => ({
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: Math.max(...values),
  });
  return {
    samples: measured.length,
    missing: count - measured.length,
    fromCalled: stats(fromCalled),
    fromResolved: stats(fromResolved),
    errors,
  };
}

async function run({ runs, count, gapMs, warmup }) {
  try {
    await ensureBenchDatabase();
  } catch (error) {
    return { skipped: `PostgreSQL not reachable on 127.0.0.1:5432 (${error.message})` };
  }
  const results = await repeat(runs, async (rep) => {
    console.log(`pg-latency: run ${rep + 1}/${runs}`);
    const result = await once({ count, gapMs, warmup }).catch((error) => ({ skipped: `failed: ${String(error.message).slice(0, 200)}` }));
    if (!result.skipped)
      console.log(`  add() called -> start p50 ${result.fromCalled.p50.toFixed(2)} ms, p99 ${result.fromCalled.p99.toFixed(2)} ms`);
    return result;
  });
  await dropSchemas([SCHEMAS.library]);
  return { results, count, gapMs };
}

module.exports = { run };
