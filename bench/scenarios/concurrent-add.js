'use strict';
// Scenario 7: concurrent single adds, as HTTP handlers make them: `inFlight` callers each awaiting its own add()
// (group commit merges the adds in flight together into one INSERT), and a lone add's latency (nothing else in
// flight: group commit must not raise it). The library on both SQLite drivers and on PostgreSQL, each also with
// one statement per add (the path before group commit, same build) as the A/B reference; BullMQ's Queue.add().
const { runChild, repeat } = require('../lib/common');
const { ensureBenchDatabase } = require('../lib/postgres');

const SYSTEMS = [
  { id: 'library', label: 'nestjs-sqlite-queue (sqlite3)', adapter: 'adapters/library.js', args: {} },
  { id: 'library-per-add', label: 'same, one statement per add', adapter: 'adapters/library.js', args: { perAdd: true } },
  { id: 'library-bs3', label: 'nestjs-sqlite-queue (better-sqlite3)', adapter: 'adapters/library.js', args: { driver: 'better-sqlite3' } },
  {
    id: 'library-bs3-per-add',
    label: 'same, one statement per add',
    adapter: 'adapters/library.js',
    args: { driver: 'better-sqlite3', perAdd: true },
  },
  { id: 'library-pg', label: 'nestjs-sqlite-queue (PostgreSQL)', adapter: 'adapters/library.js', args: { postgres: true }, pg: true },
  {
    id: 'library-pg-per-add',
    label: 'same, one statement per add',
    adapter: 'adapters/library.js',
    args: { postgres: true, perAdd: true },
    pg: true,
  },
  { id: 'bullmq', label: 'BullMQ (Redis)', adapter: 'adapters/bullmq.js', args: {} },
  { id: 'bullmq-pg', label: 'BullMQ (PostgreSQL backend)', adapter: 'adapters/bullmq-postgres.js', args: {}, pg: true, share: 10 },
];

async function run({ runs, sizes }) {
  const pgProblem = await ensureBenchDatabase().then(
    () => undefined,
    (error) => `PostgreSQL not reachable on 127.0.0.1:5432 (${error.message})`,
  );
  const systems = SYSTEMS.filter((system) => !system.pg || !pgProblem);
  const results = Object.fromEntries(systems.map((system) => [system.id, []]));
  await repeat(runs, async (rep) => {
    for (const system of systems) {
      console.log(`concurrent-add: ${system.label} (${system.id}), run ${rep + 1}/${runs}`);
      // One statement per add is slow (PostgreSQL: a WAL flush each): a quarter of the adds still gives its rate.
      // BullMQ's PostgreSQL backend is slower still: a `share` of the adds (at least as many as are in flight).
      const share = system.share ?? (system.args.perAdd ? 4 : 1);
      const own = share > 1 ? { ...sizes, total: Math.max(sizes.inFlight, sizes.total / share) } : sizes;
      const args = { ...system.args, tag: `${system.id}-${rep}`, sizes: own };
      const result = await runChild(system.adapter, 'concurrentAdd', args, { timeoutMs: 120_000 }).catch((error) => ({
        skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}`,
      }));
      results[system.id].push(result);
      if (result.skipped) console.log(`  skipped: ${result.skipped}`);
      else
        console.log(
          `  ${Math.round(result.concurrent.rate)} adds/s with ${sizes.inFlight} in flight (p99 ${result.concurrent.p99.toFixed(1)} ms); lone add p50 ${result.lone.p50.toFixed(3)} ms, p99 ${result.lone.p99.toFixed(3)} ms`,
        );
    }
  });
  return { systems: systems.map(({ id, label }) => ({ id, label })), results, pgProblem, sizes };
}

module.exports = { run, SYSTEMS };
