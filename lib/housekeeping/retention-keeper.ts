import { Logger } from '@nestjs/common';
import { FinishedJobStatus } from '../interfaces/job-info.interface';
import { RetentionOption } from '../interfaces/retention-options.interface';
import { HousekeepingStorage } from '../storage/queue-storage.interface';
import { nextTurn } from '../utils/next-turn.util';
import { PeriodicTask } from '../utils/periodic-task';
import { toRetentionRule } from './retention-rule';

/** The retention options in force for one queue. */
export interface QueueRetention {
  removeOnComplete?: RetentionOption;
  removeOnFail?: RetentionOption;
}

/** Most rows one retention statement deletes: keeps each write lock short under a big backlog. */
export const RETENTION_BATCH = 1000;

/**
 * Most batches one sweep deletes per queue and outcome: 20,000 rows a period, above what one database completes per
 * queue, while a retention first enabled on a huge table still works through it in steps, a period apart.
 */
export const MAX_BATCHES_PER_SWEEP = 20;

interface Mark {
  queue: string;
  status: 'completed' | 'failed';
  /** When a sweep of this queue and status is next useful. */
  dueAt: number;
  /** The latest finish noted, to know when its age bound falls due. */
  lastFinish: number;
}

/**
 * Applies `removeOnComplete` / `removeOnFail` in batches. A queue is marked when one of its jobs finishes
 * here; each period runs one bounded DELETE per marked queue and outcome that is due. A count bound is due
 * at once; an age bound when the jobs noted reach that age. An idle process runs no statement.
 */
export class RetentionKeeper {
  private readonly marks = new Map<string, Mark>();
  /** Jobs added with `removeOnComplete` / `removeOnFail` that finished here, by outcome, waiting for the next sweep. */
  private readonly flagged = { completed: new Set<string>(), failed: new Set<string>() };
  private readonly task: PeriodicTask;

  constructor(
    private readonly storage: HousekeepingStorage,
    private readonly retentionOf: (queue: string) => QueueRetention,
    private readonly period: number,
    private readonly logger: Logger,
  ) {
    this.task = new PeriodicTask(() => this.sweep(Date.now()), { what: 'Applying retention', period, logger });
  }

  /** Notes that a job of `queue` finished with `status` now. */
  mark(queue: string, status: FinishedJobStatus, now = Date.now()): void {
    if (status === 'cancelled') return;
    const option = this.optionOf(queue, status);
    if (option === undefined || option === false) return;
    const age = typeof option === 'object' && option.count === undefined ? (option.age ?? 0) : 0;
    const key = `${status}:${queue}`;
    const mark = this.marks.get(key);
    if (mark) {
      mark.dueAt = Math.min(mark.dueAt, now + age);
      mark.lastFinish = Math.max(mark.lastFinish, now);
    } else {
      this.marks.set(key, { queue, status, dueAt: now + age, lastFinish: now });
    }
  }

  /**
   * Notes a job added with `removeOnComplete` / `removeOnFail` that finished here with that outcome: the next sweep
   * deletes it, with the others of its period in one statement. A crash before then leaves the row, kept like any
   * other finished job (the queue's retention still applies to it).
   */
  remove(id: string, status: 'completed' | 'failed'): void {
    this.flagged[status].add(id);
  }

  /** Starts the period timer. */
  start(): void {
    this.task.start();
  }

  /** Stops the timer and sweeps what is due, so a count bound is never left exceeded by a clean shutdown. */
  async stop(): Promise<void> {
    await this.task.stop();
    try {
      await this.sweep(Date.now());
    } catch (error) {
      this.logger.error(`Applying retention at shutdown failed; it is applied again once jobs of that queue finish: ${String(error)}`);
    }
  }

  private optionOf(queue: string, status: 'completed' | 'failed'): RetentionOption | undefined {
    const retention = this.retentionOf(queue);
    return status === 'completed' ? retention.removeOnComplete : retention.removeOnFail;
  }

  /**
   * Notes a swept mark again, due at `dueAt`, merged with the mark of the same key that `mark()` made while the sweep's
   * DELETE was in flight. That mark stands for jobs the DELETE may not have seen (on PostgreSQL a completion that
   * commits after the statement's snapshot is announced while it runs): it keeps its own, earlier due time. Setting
   * the swept mark over it made `{ count, age }` wait for the age (an hour) before applying the count again.
   */
  private renote(key: string, mark: Mark, dueAt: number): void {
    const noted = this.marks.get(key);
    this.marks.set(
      key,
      noted
        ? { ...mark, dueAt: Math.min(dueAt, noted.dueAt), lastFinish: Math.max(mark.lastFinish, noted.lastFinish) }
        : { ...mark, dueAt },
    );
  }

  /** One bounded DELETE per due mark; false when nothing was due (no statement ran). Throws on the first failure. */
  private async sweep(now: number): Promise<boolean> {
    let tried = false;
    for (const status of ['completed', 'failed'] as const) {
      const ids = [...this.flagged[status]].slice(0, RETENTION_BATCH);
      if (ids.length === 0) continue;
      tried = true;
      // Forgotten only once deleted: a failed sweep tries them again after the back-off.
      await this.storage.removeFinishedJobs(ids, status);
      ids.forEach((id) => this.flagged[status].delete(id));
    }
    for (const [key, mark] of [...this.marks]) {
      if (mark.dueAt > now) continue;
      this.marks.delete(key);
      const option = this.optionOf(mark.queue, mark.status);
      const rule = toRetentionRule(option, now);
      if (!rule) continue;
      tried = true;
      try {
        // Full batches mean more is due: go on in this sweep (each batch its own short statement, so claims and
        // completions queue between them), up to a bound. One batch per period capped deletion at 1,000 rows per
        // queue per second, below the processing rate: the table and the file grew without end (bench/RESULTS.md).
        let deleted = 0;
        for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
          // Without a turn between them, better-sqlite3 would run the whole sweep (up to 20 deletes) in one go.
          if (batch > 0) await nextTurn();
          deleted = await this.storage.applyRetention(mark.queue, mark.status, rule, RETENTION_BATCH);
          if (deleted < RETENTION_BATCH) break;
        }
        if (deleted === RETENTION_BATCH) this.renote(key, mark, now);
        else if (rule.finishedBefore !== undefined && typeof option === 'object' && option.age !== undefined) {
          // Jobs noted since the oldest one still have to reach their age.
          const nextDue = mark.lastFinish + option.age;
          if (nextDue > now) this.renote(key, mark, Math.min(nextDue, now + Math.max(this.period, option.age / 10)));
        }
      } catch (error) {
        this.renote(key, mark, now);
        // The others would fail alike: try again after the back-off.
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`${mark.status} jobs of queue ${mark.queue}: ${reason}`, { cause: error });
      }
    }
    return tried;
  }
}
