'use strict';
// A/B of two builds on the real-handler load (scenario 8's 10 per queue: 1-5 ms of awaited I/O per job, 4 queues,
// 20,000 jobs), the library with its defaults. Each pair runs both builds, the order swapped every other pair, so a
// noisy spell of the machine hits both alike. Prints each run's % of the ideal (jobs in flight / mean measured handler
// time) and the median of the per-pair differences.
//   node bench/real-handlers-ab.js <base dist> <new dist> [pairs] [--pg] [--prefetch=N]
const path = require('node:path');
const { runChild, median } = require('./lib/common');

const QUEUES = ['bench-a', 'bench-b', 'bench-c', 'bench-d'];

async function runOnce(dist, pg, prefetch, tag) {
  const env = { ...process.env, BENCH_DIST_DIR: path.resolve(dist) };
  const args = { tag, queues: QUEUES, concurrency: 10, total: 20_000, postgres: pg };
  if (prefetch !== undefined) args.prefetch = prefetch;
  const result = await runChild('adapters/library.js', 'realHandlers', args, { env });
  return result.ofIdeal * 100;
}

async function main() {
  const [base, next, pairsArg] = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const pg = process.argv.includes('--pg');
  const prefetchArg = process.argv.find((arg) => arg.startsWith('--prefetch='));
  const prefetch = prefetchArg ? Number(prefetchArg.split('=')[1]) : undefined;
  const pairs = Number(pairsArg ?? 10);
  const differences = [];
  const rows = { base: [], next: [] };
  for (let pair = 0; pair < pairs; pair++) {
    const order = pair % 2 === 0 ? ['base', 'next'] : ['next', 'base'];
    const got = {};
    for (const which of order) got[which] = await runOnce(which === 'base' ? base : next, pg, prefetch, `ab-${which}-${pair}`);
    rows.base.push(got.base);
    rows.next.push(got.next);
    differences.push(got.next - got.base);
    console.log(`pair ${pair + 1}/${pairs}: base ${got.base.toFixed(1)} %, new ${got.next.toFixed(1)} % of the ideal`);
  }
  const range = (values) => `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
  console.log(
    `${pg ? 'PostgreSQL' : 'SQLite (sqlite3)'}: base ${median(rows.base).toFixed(1)} % (${range(rows.base)}), ` +
      `new ${median(rows.next).toFixed(1)} % (${range(rows.next)}); per pair new - base ${median(differences).toFixed(1)} points ` +
      `(${range(differences)}), ${differences.filter((d) => d > 0).length} of ${pairs} pairs above 0`,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
