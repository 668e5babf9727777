/**
 * The jobs to claim ahead for a queue of `concurrency` slots whose freed slot waits `waitMs` for a claim's answer and
 * whose handlers take `handlerMs` (before rounding down and the cap at `2 × concurrency`). Slots free at random: of the
 * `concurrency × waitMs / handlerMs` expected to free during a wait, the number that do is about Poisson-distributed,
 * and a lookahead of the mean alone left a slot idle in about half the rounds (90 % of the ideal with 1-5 ms handlers,
 * 96-100 % with this, in the real-handler benchmark). Where at least one slot is expected to free, this claims for
 * the 95th percentile, about `mean + 2√mean`; below one, the mean, so long handlers still claim nothing ahead.
 */
export function lookaheadFor(concurrency: number, waitMs: number, handlerMs: number): number {
  const mean = (concurrency * waitMs) / handlerMs;
  return mean >= 1 ? mean + 2 * Math.sqrt(mean) : mean;
}
