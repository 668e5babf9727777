'use strict';
// Scenario 9: disk and memory per job. Bytes per pending job (small payload `{ i }`): the SQLite file (after the
// WAL is checkpointed into it), the PostgreSQL jobs table with its indexes (the library and graphile-worker), and
// Redis memory per BullMQ job. Then retention: rounds of jobs added and processed with removeOnComplete keeping a
// fixed number, the file size after each round (the file must level off without VACUUM).
const { runChild } = require('../lib/common');
const { ensureBenchDatabase } = require('../lib/postgres');

const SYSTEMS = [
  { id: 'library', label: 'nestjs-sqlite-queue (SQLite file)', adapter: 'adapters/library.js', args: {} },
  {
    id: 'library-pg',
    label: 'nestjs-sqlite-queue (PostgreSQL table + indexes)',
    adapter: 'adapters/library.js',
    args: { postgres: true },
    pg: true,
  },
  { id: 'graphile', label: 'graphile-worker (PostgreSQL table + indexes)', adapter: 'adapters/graphile-worker.js', args: {}, pg: true },
  { id: 'bullmq', label: 'BullMQ (Redis used_memory)', adapter: 'adapters/bullmq.js', args: {} },
];

async function run({ count, retention, queues }) {
  const pgProblem = await ensureBenchDatabase().then(
    () => undefined,
    (error) => `PostgreSQL not reachable on 127.0.0.1:5432 (${error.message})`,
  );
  const results = {};
  for (const system of SYSTEMS.filter((s) => !s.pg || !pgProblem)) {
    console.log(`footprint: ${system.label}, ${count} pending jobs`);
    results[system.id] = await runChild(
      system.adapter,
      'footprint',
      { ...system.args, tag: system.id, count },
      { timeoutMs: 120_000 },
    ).catch((error) => ({ skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}` }));
    if (!results[system.id].skipped) console.log(`  ${results[system.id].perJob.toFixed(0)} bytes per job`);
  }
  console.log(`footprint: retention, ${retention.rounds} rounds of ${retention.perRound} jobs, keeping ${retention.keep} completed`);
  const kept = await runChild('adapters/library.js', 'retention', { tag: 'retention', queues, ...retention }, { timeoutMs: 300_000 }).catch(
    (error) => ({ skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}` }),
  );
  if (!kept.skipped) console.log(`  file after each round (MiB): ${kept.sizes.map((s) => (s.fileBytes / 1048576).toFixed(1)).join(', ')}`);
  return { systems: SYSTEMS.map(({ id, label }) => ({ id, label })), count, results, retention: kept, pgProblem };
}

module.exports = { run };
