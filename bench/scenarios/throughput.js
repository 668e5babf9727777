'use strict';
// Scenario 1: 100,000 no-op jobs over 4 queues: addBulk enqueue rate, end-to-end processing rate
// (start of processing -> all completed), and the rate of add() one job at a time. One child per system and run.
const { runChild, repeat } = require('../lib/common');

const SYSTEMS = [
  { id: 'library', label: 'nestjs-sqlite-queue (sqlite3)', adapter: 'adapters/library.js', args: {} },
  { id: 'library-bs3', label: 'nestjs-sqlite-queue (better-sqlite3)', adapter: 'adapters/library.js', args: { driver: 'better-sqlite3' } },
  { id: 'bullmq', label: 'BullMQ (Redis)', adapter: 'adapters/bullmq.js', args: {} },
  { id: 'plainjob', label: 'plainjob (better-sqlite3)', adapter: 'adapters/plainjob.js', args: {} },
  { id: 'raw-sqlite3', label: 'raw node-sqlite3 (ceiling)', adapter: 'adapters/raw-sqlite3.js', args: {} },
  { id: 'raw-bs3', label: 'raw better-sqlite3 (ceiling)', adapter: 'adapters/raw-better-sqlite3.js', args: {} },
];

const CONCURRENCY = { library: 50, 'library-bs3': 50, bullmq: 50, plainjob: 1, 'raw-sqlite3': 100, 'raw-bs3': 100 };

async function run({ runs, total, chunk, addOneCount, queues }) {
  const results = Object.fromEntries(SYSTEMS.map((system) => [system.id, []]));
  // Runs are interleaved (all systems, then all again) so a noisy spell hits every system alike.
  await repeat(runs, async (rep) => {
    for (const system of SYSTEMS) {
      const args = { ...system.args, tag: `${system.id}-${rep}`, queues, total, chunk, addOneCount, concurrency: CONCURRENCY[system.id] };
      console.log(`throughput: ${system.label}, run ${rep + 1}/${runs}`);
      // One failing system must not sink the whole unattended run: it shows up as "skipped: failed …".
      const result = await runChild(system.adapter, 'throughput', args, { timeoutMs: 300_000 }).catch((error) => ({
        skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}`,
      }));
      results[system.id].push(result);
      if (result.skipped) console.log(`  skipped: ${result.skipped}`);
      else
        console.log(
          `  process ${Math.round(result.process.rate)} jobs/s, addBulk ${Math.round(result.bulkEnqueue.rate)}/s, add ${Math.round(result.addOne.rate)}/s`,
        );
    }
  });
  return { systems: SYSTEMS.map(({ id, label }) => ({ id, label, concurrency: CONCURRENCY[id] })), results };
}

module.exports = { run, SYSTEMS, CONCURRENCY };
