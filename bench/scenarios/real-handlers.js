'use strict';
// Scenario 8: real handlers. Every job awaits 1-5 ms of simulated I/O; 4 queues. The achieved rate is compared
// with the ideal `jobs in flight / mean measured handler time` (lib/io-handler.js). The library runs twice: with its defaults, and with the
// processor option `prefetch` equal to the concurrency (jobs claimed ahead, as graphile-worker's local queue). Two loads: the (100 per queue: 400 in
// flight, an ideal far above what any of these databases can write, so the database is the bottleneck) and a
// lighter one (10 per queue: 40 in flight) where the database is not. Same handlers, same delays for every system.
const { runChild, repeat } = require('../lib/common');
const { ensureBenchDatabase } = require('../lib/postgres');

const SYSTEMS = [
  { id: 'library', label: 'nestjs-sqlite-queue (sqlite3)', adapter: 'adapters/library.js', args: {} },
  {
    id: 'library-prefetch',
    label: 'nestjs-sqlite-queue (sqlite3), prefetch = concurrency',
    adapter: 'adapters/library.js',
    args: {},
    prefetch: true,
  },
  { id: 'library-pg', label: 'nestjs-sqlite-queue (PostgreSQL)', adapter: 'adapters/library.js', args: { postgres: true }, pg: true },
  {
    id: 'library-pg-prefetch',
    label: 'nestjs-sqlite-queue (PostgreSQL), prefetch = concurrency',
    adapter: 'adapters/library.js',
    args: { postgres: true },
    prefetch: true,
    pg: true,
  },
  { id: 'bullmq', label: 'BullMQ (Redis)', adapter: 'adapters/bullmq.js', args: {} },
  { id: 'graphile', label: 'graphile-worker (PostgreSQL)', adapter: 'adapters/graphile-worker.js', args: {}, pg: true },
  // A 20th of the jobs (1,000): it is slow enough that the full load would take minutes per run (its rate is what counts).
  { id: 'bullmq-pg', label: 'BullMQ (PostgreSQL backend)', adapter: 'adapters/bullmq-postgres.js', args: {}, pg: true, share: 20 },
];

async function run({ runs, loads, queues }) {
  const pgProblem = await ensureBenchDatabase().then(
    () => undefined,
    (error) => `PostgreSQL not reachable on 127.0.0.1:5432 (${error.message})`,
  );
  const systems = SYSTEMS.filter((system) => !system.pg || !pgProblem);
  const results = {};
  await repeat(runs, async (rep) => {
    for (const load of loads) {
      for (const system of systems) {
        const key = `${system.id}@${load.concurrency}`;
        console.log(`real-handlers: ${system.label}, ${load.concurrency} per queue, run ${rep + 1}/${runs}`);
        const args = { ...system.args, tag: `${system.id}-${load.concurrency}-${rep}`, queues, ...load };
        if (system.share) args.total = Math.round(load.total / system.share);
        if (system.prefetch) args.prefetch = load.concurrency;
        const result = await runChild(system.adapter, 'realHandlers', args, { timeoutMs: 150_000 }).catch((error) => ({
          skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}`,
        }));
        (results[key] ??= []).push(result);
        if (result.skipped) console.log(`  skipped: ${result.skipped}`);
        else
          console.log(
            `  ${Math.round(result.rate)} jobs/s, ideal ${Math.round(result.ideal)} (I/O ${result.nominalMs.toFixed(2)} ms asked, handler took ${result.meanHandlerMs.toFixed(2)} ms): ${(result.ofIdeal * 100).toFixed(0)} %`,
          );
      }
    }
  });
  return { systems: systems.map(({ id, label }) => ({ id, label })), loads, results, pgProblem };
}

module.exports = { run, SYSTEMS };
