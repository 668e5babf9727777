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
  }
}

module.exports = SlowestFilesReporter;
