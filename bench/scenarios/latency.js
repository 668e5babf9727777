'use strict';
// Scenario 2: one job at a time into an idle queue; time from add() resolving to the handler starting.
const { runChild, repeat } = require('../lib/common');

const VARIANTS = [
  { id: 'library', label: 'nestjs-sqlite-queue (sqlite3)', adapter: 'adapters/library.js', args: {} },
  { id: 'library-bs3', label: 'nestjs-sqlite-queue (better-sqlite3)', adapter: 'adapters/library.js', args: { driver: 'better-sqlite3' } },
  { id: 'bullmq', label: 'BullMQ (Redis)', adapter: 'adapters/bullmq.js', args: {} },
];

async function run({ runs, count, gapMs, warmup }) {
  const results = Object.fromEntries(VARIANTS.map((variant) => [variant.id, []]));
  await repeat(runs, async (rep) => {
    for (const variant of VARIANTS) {
      console.log(`latency: ${variant.label}, run ${rep + 1}/${runs}`);
      const args = { ...variant.args, tag: `${variant.id}-${rep}`, count, gapMs, warmup };
      const result = await runChild(variant.adapter, 'latency', args).catch((error) => ({
        skipped: `failed: ${String(error.message).split('\n')[0].slice(0, 200)}`,
      }));
      results[variant.id].push(result);
      if (result.skipped) console.log(`  skipped: ${result.skipped}`);
      else console.log(`  p50 ${result.fromResolved.p50.toFixed(2)} ms, p99 ${result.fromResolved.p99.toFixed(2)} ms`);
    }
  });
  return { variants: VARIANTS.map(({ id, label }) => ({ id, label })), results };
}

module.exports = { run };
