/**
 * The dashboard's browser tests drive Debian's Chromium (test/support/browser.ts). `.ci/run` installs it; a fresh
 * machine running `npm test` by itself may not have it. Outside CI the files that drive it are then left out, and
 * the run says so in one loud line at its start and its end, with how to run them; with `CI=true` a missing
 * Chromium fails those files (a green CI run must mean the dashboard was tested in a browser).
 * Plain JavaScript: jest.config.js reads it.
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const BROWSER_NOTICE_ENV = 'QUEUE_TEST_BROWSER_SKIPPED';
const CHROMIUM_PATH = process.env.QUEUE_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** The test files that launch Chromium: those importing the browser support module. */
function browserTestFiles(root) {
  const dir = join(root, 'test');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.e2e-spec.ts'))
    .filter((name) => /from '\.\/support\/browser'/.test(readFileSync(join(dir, name), 'utf8')))
    .map((name) => `test/${name}`);
}

/**
 * The browser files to leave out of this run and the notice that says so, or nothing to leave out (Chromium is
 * there, or CI must run them and fail if it is not).
 */
function probeChromium(root) {
  if (existsSync(CHROMIUM_PATH) || process.env.CI === 'true') return { skip: [], notice: undefined };
  const skip = browserTestFiles(root);
  const notice =
    `*** No Chromium at ${CHROMIUM_PATH}: the dashboard's ${skip.length} browser test files are NOT run ` +
    `(${skip.map((file) => file.replace(/^test\//, '')).join(', ')}). To run them: apt-get install -y chromium ` +
    `(or QUEUE_TEST_CHROMIUM=<path to a Chromium>), then npm test.`;
  return { skip, notice };
}

module.exports = { probeChromium, browserTestFiles, BROWSER_NOTICE_ENV };
