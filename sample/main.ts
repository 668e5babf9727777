/**
 * The sample: boots a Nest HTTP application with the queue dashboard mounted at /queues, enqueues a few thousand
 * jobs on three queues while a schedule feeds a fourth, shows progress and notable job events live, prints
 * the throughput, the recurring job's runs and per-queue counts and timings, and closes the app cleanly.
 * Run it with `npm start` from the repository root; `npm run start:dashboard` (or `--keep-open`) keeps the
 * dashboard serving after the jobs are done, until Ctrl+C.
 */
import 'reflect-metadata';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { ProducerService } from './producer.service';
import { ProgressReporterService } from './progress-reporter.service';
import { REPORTS_QUEUE } from './reports/backlog-snapshot.job';
import { RunSummaryService } from './run-summary.service';
import { SAMPLE_CONFIG } from './sample.config';

// Each retry logs a warning; dozens of them would scroll the progress line away, so by default only errors
// show (the events reporter prints the first few retries and counts the rest). SAMPLE_VERBOSE=1 shows everything.
const LOG_LEVELS: LogLevel[] = process.env.SAMPLE_VERBOSE ? ['log', 'warn', 'error', 'fatal'] : ['error', 'fatal'];

/** Starts every run from an empty queue; SQLite's WAL side files go with the database. */
function freshDatabase(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/** Resolves on the first Ctrl+C or SIGTERM. */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function main(): Promise<void> {
  freshDatabase(SAMPLE_CONFIG.database);
  // init() runs in listen(): the table is created, the schedules are stored and the processors start claiming
  // before this resolves.
  const app = await NestFactory.create(AppModule, { logger: LOG_LEVELS, forceCloseConnections: true });
  try {
    await app.listen(SAMPLE_CONFIG.port, SAMPLE_CONFIG.host);
    const { port } = app.getHttpServer().address() as { port: number };
    const dashboard = `http://${SAMPLE_CONFIG.host === '0.0.0.0' ? 'localhost' : SAMPLE_CONFIG.host}:${port}/queues`;
    console.log(
      SAMPLE_CONFIG.keepOpen
        ? `Dashboard: ${dashboard} (kept open after the run, until Ctrl+C)`
        : `Dashboard: ${dashboard} (open while this run lasts, a few seconds; \`npm run start:dashboard\` keeps it open after)`,
    );
    const producer = app.get(ProducerService);
    const reporter = app.get(ProgressReporterService);

    const startedAt = performance.now();
    const enqueued = await producer.enqueueAll();
    const total = Object.values(enqueued).reduce((sum, n) => sum + n, 0);
    console.log(`Enqueued ${total} jobs in ${Math.round(performance.now() - startedAt)} ms (${JSON.stringify(enqueued)}); processing...`);

    const final = await reporter.waitUntilDrained(Object.keys(enqueued), [REPORTS_QUEUE], startedAt, SAMPLE_CONFIG.drainTimeoutMs);
    const elapsedMs = performance.now() - startedAt;
    const summary = app.get(RunSummaryService);
    await summary.print(final, elapsedMs, await summary.stopSchedule());
    if (SAMPLE_CONFIG.keepOpen) {
      await summary.restoreSchedule();
      console.log(`The dashboard keeps serving at ${dashboard}; Ctrl+C to stop.`);
      await interrupted();
    } else {
      console.log(`Done: the dashboard closes with the app. \`npm run start:dashboard\` runs the same and keeps it open until Ctrl+C.`);
    }
  } finally {
    // Stops the shared poller and the scheduler, lets running jobs finish and closes the database. No
    // process.exit(): the process ends by itself once nothing is left open, which is what a clean shutdown means.
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
