/**
 * Runs the longest test files first, so that two workers end together instead of one waiting on a long file that
 * started last (the consumer project alone is minutes). jest's own sequencer does this from its cache of earlier
 * runs, which a fresh clone (CI, a newcomer) does not have: there it falls back to file size, which says little here.
 * This one reads the durations jest cached when it has them, and otherwise the ones committed in
 * file-durations.json (seconds per file, from a full run: `QUEUE_TEST_TIMINGS=<file> npx jest` writes them).
 * Plain JavaScript: jest loads the sequencer before any transform exists.
 */
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const committed = require('./file-durations.json');

class DurationSequencer extends Sequencer {
  time(test) {
    const cached = super.time(test);
    if (cached != null) return cached;
    const seconds = committed[relative(test.context.config.rootDir, test.path)];
    return seconds == null ? undefined : seconds * 1000;
  }
}

module.exports = DurationSequencer;
