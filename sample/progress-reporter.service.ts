import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobCounts, QueueAdmin } from '../lib';

/** Counts of every watched queue, by queue name. */
export type QueueSnapshot = Map<string, JobCounts>;

/** How often the counts are read: drain is noticed within this, so the throughput is not rounded to seconds. */
const CHECK_EVERY_MS = 100;
/** How often the progress line is redrawn (or, without a TTY, printed). */
const RENDER_EVERY_MS = 1000;

/**
 * Watches the queues through `QueueAdmin.getCounts()` (what a health endpoint or a dashboard would use)
 * and draws one progress line: redrawn in place on a terminal, a plain line per second otherwise (CI, pipes).
 */
@Injectable()
export class ProgressReporterService {
  private readonly tty = process.stdout.isTTY === true;

  constructor(private readonly admin: QueueAdmin) {}

  /**
   * Resolves with the final counts once no job of `queues` is pending (delayed ones included) or running.
   * @throws Error when that has not happened within `timeoutMs`.
   */
  async waitUntilDrained(queues: string[], startedAt: number, timeoutMs: number): Promise<QueueSnapshot> {
    let renderedAt = 0;
    console.log('Per queue: completed/failed/pending (pending includes delayed, retrying and running jobs)');
    for (;;) {
      const snapshot = await this.snapshot(queues);
      const drained = [...snapshot.values()].every((counts) => counts.pending + counts.running === 0);
      const now = performance.now();
      if (drained || now - renderedAt >= RENDER_EVERY_MS) {
        this.render(snapshot, now - startedAt);
        renderedAt = now;
      }
      if (drained) {
        if (this.tty) process.stdout.write('\n');
        return snapshot;
      }
      if (now - startedAt > timeoutMs) {
        if (this.tty) process.stdout.write('\n');
        throw new Error(`Queues did not drain within ${timeoutMs} ms`);
      }
      await sleep(CHECK_EVERY_MS);
    }
  }

  /** Prints the throughput and a table of the final counts per queue. */
  printSummary(snapshot: QueueSnapshot, elapsedMs: number): void {
    const totals = [...snapshot.values()];
    const finished = totals.reduce((sum, c) => sum + c.completed + c.failed, 0);
    const seconds = elapsedMs / 1000;
    console.log(`\n${finished} jobs finished in ${seconds.toFixed(2)} s: ${Math.round(finished / seconds)} jobs/s`);
    console.log(`  ${'queue'.padEnd(8)} ${'completed'.padStart(9)} ${'failed'.padStart(6)} ${'pending'.padStart(7)}`);
    for (const [queue, c] of snapshot) {
      console.log(`  ${queue.padEnd(8)} ${String(c.completed).padStart(9)} ${String(c.failed).padStart(6)} ${String(c.pending + c.running).padStart(7)}`);
    }
  }

  private async snapshot(queues: string[]): Promise<QueueSnapshot> {
    const entries = await Promise.all(queues.map(async (queue) => [queue, await this.admin.getCounts(queue)] as const));
    return new Map(entries);
  }

  private render(snapshot: QueueSnapshot, elapsedMs: number): void {
    // Running jobs are not done yet, so they count as pending here.
    const parts = [...snapshot].map(([queue, c]) => `${queue} ${c.completed}/${c.failed}/${c.pending + c.running}`);
    const line = `[${(elapsedMs / 1000).toFixed(1).padStart(5)}s] ${parts.join(' | ')}`;
    if (!this.tty) {
      console.log(line);
      return;
    }
    // A line wider than the terminal wraps, and \r would then redraw only its last row.
    const width = (process.stdout.columns ?? 120) - 1;
    process.stdout.write(`\r${line.slice(0, width)}\x1b[K`);
  }
}
