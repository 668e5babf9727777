/**
 * A jest reporter that prints, after the summary, the ten slowest test files with their wall time and project, so
 * that a file that gets slow is seen in the run that made it slow (the suite's time is part of the product).
 * Plain JavaScript: jest loads reporters before any transform exists.
 */
class SlowestFilesReporter {
  constructor(globalConfig, options = {}) {
    this.count = options.count ?? 10;
    this.files = [];
  }

  onRunStart() {
    // QUEUE_TEST_CPU=<file>: this run's lines only (test/support/cpu-environment.js appends one per file).
    if (process.env.QUEUE_TEST_CPU) require('fs').writeFileSync(process.env.QUEUE_TEST_CPU, '');
  }

  onTestResult(test, result) {
    const ms = result.perfStats.end - result.perfStats.start;
    const project = test.context.config.displayName ? test.context.config.displayName.name : '';
    this.files.push({ path: result.testFilePath.replace(`${test.context.config.rootDir}/`, ''), ms, project });
  }

  onRunComplete(_contexts, results) {
    if (!this.files.length) return;
    const slowest = [...this.files].sort((a, b) => b.ms - a.ms).slice(0, this.count);
    const wall = (Date.now() - results.startTime) / 1000;
    const lines = slowest.map(({ path, ms, project }) => `  ${(ms / 1000).toFixed(1).padStart(7)} s  ${project.padEnd(8)} ${path}`);
    // QUEUE_TEST_TIMINGS=<file> keeps every file's time (JSON), to compare runs file by file.
    if (process.env.QUEUE_TEST_TIMINGS) {
      const all = [...this.files].sort((a, b) => b.ms - a.ms);
      require('fs').writeFileSync(process.env.QUEUE_TEST_TIMINGS, JSON.stringify({ wall, files: all }, null, 2));
    }
    process.stderr.write(`\nThe ${slowest.length} slowest test files (wall time ${wall.toFixed(0)} s in all):\n${lines.join('\n')}\n`);
    if (process.env.QUEUE_TEST_CPU) this.printHungriest(process.env.QUEUE_TEST_CPU);
  }

  /** The files that took the most CPU, with their children's, from the lines cpu-environment.js wrote. */
  printHungriest(file) {
    const rows = require('fs')
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .map((row) => ({ ...row, total: row.own + row.children }))
      .sort((a, b) => b.total - a.total);
    const sum = (key) => rows.reduce((total, row) => total + row[key], 0);
    const lines = rows
      .slice(0, this.count)
      .map(
        (row) =>
          `  ${row.total.toFixed(1).padStart(7)} s  (${row.own.toFixed(1)} in jest, ${row.children.toFixed(1)} in children)  ${row.path}`,
      );
    process.stderr.write(
      `\nThe ${lines.length} files that used the most CPU (${sum('own').toFixed(0)} s in jest's workers and ` +
        `${sum('children').toFixed(0)} s in their child processes, over ${rows.length} files):\n${lines.join('\n')}\n`,
    );
  }
}

module.exports = SlowestFilesReporter;
