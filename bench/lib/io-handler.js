'use strict';
// The handler of the real-handler scenario: awaits 1-5 ms of simulated I/O (a timer). The ideal rate uses the
// delays asked for (about 3 ms on average); how long the calls really took is reported beside it: the difference
// is timer granularity plus the event-loop lag the queue library itself causes.
const { now } = require('./common');

function ioHandler() {
  const durations = [];
  const delays = [];
  let seed = 12345;
  // A fixed pseudo-random sequence: every system gets the same mix of delays.
  const nextDelay = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return 1 + (seed / 2147483648) * 4;
  };
  return {
    durations,
    handle: async () => {
      const t = now();
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

/** The result every system reports: achieved rate against the ideal `jobs in flight / mean handler time`. */
function ioResult({ total, ms, inFlight, handler, extra = {} }) {
  const rate = (total / ms) * 1000;
  const ideal = (inFlight / handler.nominalMs()) * 1000;
  return {
    jobs: total,
    ms,
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
