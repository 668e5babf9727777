'use strict';
// Boots one soak child's Nest application (plain JavaScript: decorators applied as functions), with a logger
// that appends what the library logs (warnings and errors) to a per-process file the orchestrator counts.
require('reflect-metadata');
const fs = require('node:fs');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const { lib } = require('../lib/library-app');

/** Every soak job's retry policy: plenty of attempts (each crash recovery counts one) and a short fixed backoff. */
const JOB_RETRY = { maxAttempts: 25, backoff: { type: 'fixed', delay: 100 } };

/** The dead-letter queue of every soak queue (consumer.js). */
const DEAD_LETTERS = 'soak-dead';

/**
 * Retention in delete mode (`--delete-on-complete`): `soak-a` keeps no completed job (its completions delete their
 * rows), a share of `soak-b`'s jobs are added with `removeOnComplete: true` (the rest kept), `soak-c` keeps the newest
 * 200 completed jobs for at most 3 s (retention's batched deletes run throughout), `soak-d` keeps everything and takes
 * every flow, so the flow checks (every node found, parents not run early) keep their strength. No failure is removed
 * (`removeOnFail`): the dead-letter checks read the failed rows. Nothing in the soak waits for a job
 * (`waitUntilFinished`), so the waiters' heartbeat never holds a deletion back.
 */
const DELETE_MODE = {
  queueRetention: { 'soak-a': { removeOnComplete: true }, 'soak-c': { removeOnComplete: { count: 200, age: 3000 } } },
  /** The queue whose completions delete their rows, sampled during the run (chaos.js). */
  deletingQueue: 'soak-a',
  perJobQueue: 'soak-b',
  perJobShare: 0.5,
  flowQueue: 'soak-d',
  /** The share of the production window after which producers wait for some jobs (`waitUntilFinished`). */
  waitsFrom: 0.7,
};

/**
 * Module options for a backend spec from the orchestrator: short leases, so killed jobs come back within seconds.
 * SQLite's shortest lease at this poll interval is 6.5 s (it must outlast a heartbeat interval plus a full busy
 * wait); PostgreSQL has no such floor.
 */
function moduleOptions(backend, processing) {
  const common = { pollInterval: 500, shutdownTimeout: 5000, processing, ...JOB_RETRY };
  if (backend.kind === 'postgres') return { ...common, leaseDuration: 4000, postgres: { url: backend.url, schema: backend.schema } };
  return { ...common, leaseDuration: 6500, database: backend.database, driver: backend.driver };
}

/** A Nest logger that appends warnings and errors, one line each, to `file` (synchronously: a kill may follow). */
function fileLogger(file) {
  const fd = fs.openSync(file, 'a');
  const note =
    (level) =>
    (message, ...rest) => {
      const text = [message, ...rest].map((part) => (part instanceof Error ? part.stack : String(part))).join(' ');
      fs.writeSync(fd, `${level} ${Date.now()} ${text.replace(/\n/g, ' | ')}\n`);
    };
  return { log() {}, debug() {}, verbose() {}, warn: note('warn'), error: note('error'), fatal: note('fatal') };
}

/**
 * Starts the application: one processor per queue running `handler(job)` (with `processorOptions(queue)` beside
 * `concurrency`), whose `completed` events go to `onCompleted(event)` (emitted only once the completion is stored and
 * still owned).
 */
async function startSoakApp({
  backend,
  processing,
  queues = [],
  concurrency = 1,
  processorOptions = () => ({}),
  handler,
  onCompleted,
  logFile,
}) {
  const providers = queues.map((queue) => {
    const ProcessorClass = class {
      process(job) {
        return handler(job);
      }
      onCompleted(event) {
        onCompleted(event);
      }
    };
    Object.defineProperty(ProcessorClass, 'name', { value: `SoakProcessor_${queue.replace(/\W/g, '_')}` });
    const descriptor = Object.getOwnPropertyDescriptor(ProcessorClass.prototype, 'onCompleted');
    lib.OnJobEvent('completed')(ProcessorClass.prototype, 'onCompleted', descriptor);
    lib.Processor(queue, { concurrency, ...processorOptions(queue) })(ProcessorClass);
    return ProcessorClass;
  });
  class SoakModule {}
  Module({ imports: [lib.SqliteQueueModule.forRoot(moduleOptions(backend, processing))], providers })(SoakModule);
  const app = await NestFactory.createApplicationContext(SoakModule, { logger: fileLogger(logFile), abortOnError: false });
  return { app, producer: app.get(lib.QueueProducer) };
}

/**
 * Wires the orchestrator's IPC: `{ type: 'stop' }` closes the app and exits 0; losing the orchestrator (its
 * IPC channel closes) exits at once, so no child outlives a soak that died.
 */
function onOrchestrator(getApp /* () => Promise<app | undefined> */, beforeStop = () => undefined) {
  process.on('disconnect', () => process.exit(70));
  process.on('message', async (message) => {
    if (!message || message.type !== 'stop') return;
    await beforeStop();
    const app = await getApp();
    if (app) await app.close();
    process.exit(0);
  });
}

module.exports = { DEAD_LETTERS, DELETE_MODE, JOB_RETRY, startSoakApp, onOrchestrator };
