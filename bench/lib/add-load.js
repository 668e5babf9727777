'use strict';
// The load of the concurrent-add scenario, shared by every system: a lone add measured one at a time, then
// `inFlight` callers (HTTP handlers, say) that each await their own add() and start the next one at once.
const { now, percentile } = require('./common');

const stats = (values) => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: Math.max(...values) });

/**
 * @param {(i: number) => Promise<unknown>} add  one add() of job number i
 * @param {{ total: number, inFlight: number, loneCount: number, warmup: number }} sizes
 * @param {(i: number) => Promise<unknown>} [reference]  another way to add one job, whose lone latency is measured
 *   in turns with `add`'s (one each, in the same process, which goes first alternating): a pair measured side by side, which the
 *   machine's drift and a garbage collection or checkpoint here or there cannot tell apart, unlike separate runs.
 */
async function measureAdds(add, { total, inFlight, loneCount, warmup }, reference) {
  for (let i = 0; i < warmup; i++) await add(-1 - i);
  // A lone add: nothing else in flight, the latency every request of a quiet application sees.
  const lone = [];
  const loneReference = [];
  for (let i = 0; i < loneCount; i++) {
    // Which of the pair goes first alternates: the first of a pair pays more at the p99. On PostgreSQL (3 runs each
    // way) the library's p99 over the reference's was 1.04 with the library's add first, 0.80 with the reference's.
    const referenceFirst = reference !== undefined && i % 2 === 1;
    if (referenceFirst) {
      const t = now();
      await reference(-1 - warmup - i);
      loneReference.push(now() - t);
    }
    let t = now();
    await add(i);
    lone.push(now() - t);
    if (!reference || referenceFirst) continue;
    t = now();
    await reference(-1 - warmup - i);
    loneReference.push(now() - t);
  }
  // Then `inFlight` callers at once, each awaiting its own add, until `total` adds are done.
  const each = [];
  let next = 0;
  const caller = async () => {
    while (next < total) {
      const i = next++;
      const t = now();
      await add(loneCount + i);
      each.push(now() - t);
    }
  };
  const t0 = now();
  await Promise.all(Array.from({ length: inFlight }, caller));
  const ms = now() - t0;
  return {
    lone: stats(lone),
    ...(reference ? { loneReference: stats(loneReference) } : {}),
    concurrent: { jobs: total, inFlight, ms, rate: (total / ms) * 1000, ...stats(each) },
  };
}

module.exports = { measureAdds };
