/**
 * QUEUE_TEST_CPU=<file>: jest's node environment, which also appends each test file's CPU time, with its child
 * processes', to <file> as one JSON line; the slowest-files reporter then prints the ten hungriest files. On two
 * cores a file's wall time says little (most of it is waiting, which overlaps other files); its CPU is what it takes
 * from the files beside it.
 *
 * Read in the jest worker when the environment is set up and when it is torn down, after every hook of the file:
 * the worker's own CPU (`process.cpuUsage`: the file's tests, its transform and what it imports), and from
 * /proc/self/stat the CPU of the worker's children that have ended and been reaped (cutime, cstime: npm, tsc,
 * Chromium, the fixture apps). A child still running at teardown is counted in that worker's next file. Linux only;
 * elsewhere only the worker's own CPU is counted. Plain JavaScript: jest loads environments before any transform.
 */
const { appendFileSync, readFileSync } = require('node:fs');
const { relative } = require('node:path');
const { TestEnvironment } = require('jest-environment-node');

/** /proc reports in USER_HZ, which Linux fixes at 100 for user space. */
const TICKS_PER_SECOND = 100;

/** Seconds of CPU of this worker's reaped children (user + system), or 0 where /proc is not there. */
function childrenSeconds() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // The fields after the command name (in parentheses, which may hold spaces): [0] is field 3, cutime is field 16.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

function ownSeconds() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

class CpuEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.path = relative(config.projectConfig.rootDir, context.testPath);
    this.start = { own: ownSeconds(), children: childrenSeconds() };
  }

  async teardown() {
    await super.teardown();
    const own = ownSeconds() - this.start.own;
    const children = childrenSeconds() - this.start.children;
    appendFileSync(process.env.QUEUE_TEST_CPU, `${JSON.stringify({ path: this.path, own, children })}\n`);
  }
}

module.exports = CpuEnvironment;
