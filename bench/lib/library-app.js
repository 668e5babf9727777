'use strict';
// Boots a NestJS application context with this library (loaded from ../dist, built by `npm run build`).
// Plain JavaScript, so decorators are applied as functions: Processor(queue, options)(Class), Module({...})(Class).
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { DIST_DIR } = require('./common');

const lib = require(DIST_DIR);

/** Whether the built library knows the `driver` module option (added in parallel by the lead). */
function supportsDriverOption() {
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.js')) files.push(full);
    }
  };
  walk(DIST_DIR);
  return files.some((file) => /['"]better-sqlite3['"]/.test(fs.readFileSync(file, 'utf8')));
}

/** Which SQLite bindings this process has loaded so far (to prove which driver a run really used). */
function loadedDrivers() {
  const keys = Object.keys(require.cache);
  return {
    sqlite3: keys.some((key) => key.includes(`${path.sep}node_modules${path.sep}sqlite3${path.sep}`)),
    betterSqlite3: keys.some((key) => key.includes(`${path.sep}node_modules${path.sep}better-sqlite3${path.sep}`)),
  };
}

/**
 * A Nest logger that counts what the library reports. `busy` counts messages that mention a lock
 * (SQLITE_BUSY / SQLITE_LOCKED / "database is locked"); the first few errors are kept as samples.
 */
function countingLogger({ echo = false } = {}) {
  const stats = { errors: 0, warnings: 0, busy: 0, samples: [] };
  const note = (level, message, rest) => {
    const text = [message, ...rest].map(String).join(' ');
    if (/SQLITE_BUSY|SQLITE_LOCKED|database is locked|database table is locked/i.test(text)) stats.busy++;
    if (stats.samples.length < 5) stats.samples.push(`${level}: ${text.slice(0, 300)}`);
    if (echo) process.stderr.write(`${level}: ${text}\n`);
  };
  return {
    stats,
    logger: {
      log() {},
      debug() {},
      verbose() {},
      fatal(message, ...rest) {
        stats.errors++;
        note('fatal', message, rest);
      },
      error(message, ...rest) {
        stats.errors++;
        note('error', message, rest);
      },
      warn(message, ...rest) {
        stats.warnings++;
        note('warn', message, rest);
      },
    },
  };
}

/**
 * Starts an application with one no-op-by-default processor per queue.
 * @param {object} p
 * @param {object} p.options        SqliteQueueModule.forRoot options
 * @param {string[]} [p.queues]     queues to process (none: a producer-only app)
 * @param {number} [p.concurrency]  per queue
 * @param {number} [p.prefetch]     per queue (the processor option; 0 by default)
 * @param {(job) => any} [p.handler]
 */
async function startLibraryApp({ options, queues = [], concurrency = 1, prefetch, handler = () => undefined, logger }) {
  const providers = queues.map((queue) => {
    const ProcessorClass = class {
      async process(job) {
        return handler(job);
      }
    };
    Object.defineProperty(ProcessorClass, 'name', { value: `BenchProcessor_${queue.replace(/\W/g, '_')}` });
    lib.Processor(queue, prefetch ? { concurrency, prefetch } : { concurrency })(ProcessorClass);
    return ProcessorClass;
  });
  class BenchModule {}
  Module({ imports: [lib.SqliteQueueModule.forRoot(options)], providers })(BenchModule);
  const counting = logger || countingLogger();
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: counting.logger, abortOnError: false });
  return {
    app,
    producer: app.get(lib.QueueProducer),
    admin: app.get(lib.QueueAdmin),
    log: counting.stats,
    close: () => app.close(),
  };
}

module.exports = { lib, startLibraryApp, countingLogger, supportsDriverOption, loadedDrivers };
