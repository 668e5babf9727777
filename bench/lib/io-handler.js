'use strict';
// The handler of the real-handler scenario: awaits 1-5 ms of simulated I/O (a timer). The ideal rate uses how long
// the calls really took, measured with the high-resolution clock (a timer may fire early against the event loop's
// cached time, so an ideal from the delays asked for could be beaten, and late by its 1 ms granularity); the delays
// asked for (about 3 ms on average) are reported beside it.
const { now } = require('./common');

function ioHandler() {
  const durations = [];
  const delays = [];
  let seed = 12345;
  let firstStartAt;
  // A fixed pseudo-random sequence: every system gets the same mix of delays.
  const nextDelay = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return 1 + (seed / 2147483648) * 4;
  };
  return {
    durations,
    /** When the first job started (ms, the bench clock); undefined before. */
    firstStartAt: () => firstStartAt,
    handle: async () => {
      const t = now();
      firstStartAt ??= t;
      const delay = nextDelay();
      delays.push(delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      durations.push(now() - t);
    },
    /** Mean measured handler time, ms. */
    meanMs: () => durations.reduce((sum, d) => sum + d, 0) / Math.max(1, durations.length),
    /** Mean I/O time asked for, ms. */
    nominalMs: () => delays.reduce((sum, d) => sum + d, 0) / Math.max(1, delays.length),
  };
}

/**
 * The result every system reports: achieved rate against the ideal `jobs in flight / mean handler time`. The rate is
 * the steady one, from the first job's start to the last completion: booting (a Nest application, a worker pool,
 * a Redis connection) is reported apart as `bootMs`, as it is a one-off that a run of a second would otherwise be
 * dominated by.
 */
function ioResult({ total, startedAt, endedAt, inFlight, handler, extra = {} }) {
  const firstStartAt = handler.firstStartAt() ?? startedAt;
  const ms = endedAt - firstStartAt;
  const rate = (total / ms) * 1000;
  const ideal = (inFlight / handler.meanMs()) * 1000;
  return {
    jobs: total,
    ms,
    bootMs: firstStartAt - startedAt,
    rate,
    inFlight,
    meanHandlerMs: handler.meanMs(),
    nominalMs: handler.nominalMs(),
    ideal,
    ofIdeal: rate / ideal,
    ...extra,
  };
}

module.exports = { ioHandler, ioResult };
