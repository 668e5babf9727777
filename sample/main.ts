/**
 * The sample: boots a Nest application context (no HTTP server needed to run jobs), enqueues a few thousand
 * jobs on three queues, shows their progress live, prints the throughput and final counts, and closes the
 * app cleanly. Run it with `npm start` from the repository root.
 */
import 'reflect-metadata';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { QueueAdmin } from '../lib';
import { AppModule } from './app.module';
import { BillingProcessor } from './billing/billing.processor';
import { ProducerService } from './producer.service';
import { ProgressReporterService } from './progress-reporter.service';
import { SAMPLE_CONFIG } from './sample.config';

// Each retry logs a warning; dozens of them would scroll the progress line away, so by default only errors
// show (the retries are summed up at the end instead). SAMPLE_VERBOSE=1 shows everything.
const LOG_LEVELS: LogLevel[] = process.env.SAMPLE_VERBOSE ? ['log', 'warn', 'error', 'fatal'] : ['error', 'fatal'];

/** Starts every run from an empty queue; SQLite's WAL side files go with the database. */
function freshDatabase(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/** Uses `QueueAdmin.getJob()` to show that a failed attempt was retried, and that its error stays on record. */
async function showRetries(failedJobIds: readonly string[], admin: QueueAdmin): Promise<void> {
  if (failedJobIds.length === 0) return;
  const job = await admin.getJob(failedJobIds[0]);
  console.log(`\nbilling: ${failedJobIds.length} charges hit a simulated gateway timeout on attempt 1 and were retried.`);
  if (job) {
    console.log(`  e.g. job ${job.id}: ${job.status} on attempt ${job.attempts}/${job.maxAttempts}, last error: ${job.error?.name}: ${job.error?.message}`);
  }
}

async function main(): Promise<void> {
  freshDatabase(SAMPLE_CONFIG.database);
  // init() runs inside: the table is created and the processors start claiming before this resolves.
  const app = await NestFactory.createApplicationContext(AppModule, { logger: LOG_LEVELS });
  try {
    const producer = app.get(ProducerService);
    const reporter = app.get(ProgressReporterService);

    const startedAt = performance.now();
    const enqueued = await producer.enqueueAll();
    const total = Object.values(enqueued).reduce((sum, n) => sum + n, 0);
    console.log(`Enqueued ${total} jobs in ${Math.round(performance.now() - startedAt)} ms (${JSON.stringify(enqueued)}); processing...`);

    const final = await reporter.waitUntilDrained(Object.keys(enqueued), startedAt, SAMPLE_CONFIG.drainTimeoutMs);
    reporter.printSummary(final, performance.now() - startedAt);
    await showRetries(app.get(BillingProcessor).failedJobIds, app.get(QueueAdmin));
  } finally {
    // Stops the shared poller, lets running jobs finish and closes the database. No process.exit(): the
    // process ends by itself once nothing is left open, which is what a clean shutdown means.
    await app.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
