import { Injectable } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobCounts, QueueAdmin } from '../lib';
import { EventsReporterService } from './events-reporter.service';

/** Counts of every watched queue, by queue name. */
export type QueueSnapshot = Map<string, JobCounts>;

/** How often the counts are read: drain is noticed within this, so the throughput is not rounded to seconds. */
const CHECK_EVERY_MS = 100;
/** How often the progress line is redrawn (or, without a TTY, printed). */
const RENDER_EVERY_MS = 1000;

/**
 * Watches the queues through `QueueAdmin.getCounts()` (what a health endpoint or a dashboard would use)
 * and draws one progress line: redrawn in place on a terminal, a plain line per second otherwise (CI, pipes).
 * It is the only writer while jobs run, so the notable events are printed here too, above the line.
 */
@Injectable()
export class ProgressReporterService {
  private readonly tty = process.stdout.isTTY === true;

  constructor(
    private readonly admin: QueueAdmin,
    private readonly events: EventsReporterService,
  ) {}

  /**
   * Resolves with the final counts once no job of `queues` is pending (delayed ones included) or running.
   * `recurring` queues never drain (a schedule keeps feeding them): their runs are shown, not waited for.
   * @throws Error when that has not happened within `timeoutMs`.
   */
  async waitUntilDrained(queues: string[], recurring: string[], startedAt: number, timeoutMs: number): Promise<QueueSnapshot> {
    let renderedAt = 0;
    console.log('Per queue: completed/failed/pending (pending includes delayed, retrying, claimed and running jobs)');
    for (;;) {
      const snapshot = await this.snapshot(queues);
      const drained = [...snapshot.values()].every((counts) => unfinished(counts) === 0);
      const now = performance.now();
      if (drained || now - renderedAt >= RENDER_EVERY_MS) {
        this.render(snapshot, await this.snapshot(recurring), now - startedAt);
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

  private async snapshot(queues: string[]): Promise<QueueSnapshot> {
    const entries = await Promise.all(queues.map(async (queue) => [queue, await this.admin.getCounts(queue)] as const));
    return new Map(entries);
  }

  private render(snapshot: QueueSnapshot, recurring: QueueSnapshot, elapsedMs: number): void {
    // Running jobs are not done yet, so they count as pending here.
    const parts = [...snapshot].map(([queue, c]) => `${queue} ${c.completed}/${c.failed}/${unfinished(c)}`);
    parts.push(...[...recurring].map(([queue, c]) => `${queue} ${c.completed} run${c.completed === 1 ? '' : 's'}`));
    const line = `[${(elapsedMs / 1000).toFixed(1).padStart(5)}s] ${parts.join(' | ')}`;
    const notes = this.events.takeNotes();
    if (!this.tty) {
      for (const note of [...notes, line]) console.log(note);
      return;
    }
    // Notes replace the current line and scroll up; the line is then redrawn under them. A line wider than
    // the terminal wraps, and \r would then redraw only its last row.
    const width = (process.stdout.columns ?? 120) - 1;
    process.stdout.write(notes.map((note) => `\r${note}\x1b[K\n`).join('') + `\r${line.slice(0, width)}\x1b[K`);
  }
}

/**
 * Jobs of a queue not finished yet: pending (delayed and retrying ones too), running, and claimed ahead of a free slot
 * by a process (`claimed`: status running, not started yet, and counted apart from `running`).
 */
export function unfinished(counts: JobCounts): number {
  return counts.pending + counts.running + counts.claimed;
}
