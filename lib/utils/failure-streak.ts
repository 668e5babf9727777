/** The logger a `FailureStreak` writes to (a Nest `Logger`). */
export interface FailureStreakLogger {
  error(message: string): void;
  log(message: string): void;
}

/** Longest pause a failing background loop takes between tries, unless its own period is longer. */
export const MAX_OUTAGE_BACKOFF_MS = 5000;

/**
 * The state of a background loop (claims, lease recovery, schedules, retention) against a database that may be
 * down. During an outage every try fails the same way: the first failure is logged, the rest are not, and the
 * loop backs off: the try after a first failure comes on the loop's next period as usual (one failure is often
 * just a busy moment), then the pause grows by doubling steps of the period, capped at the larger of the period
 * and `MAX_OUTAGE_BACKOFF_MS`: bounded, so work resumes within seconds of the database's return. The first
 * success after failures is logged too. A loop that must not back off (the heartbeat) never asks `canTry()`.
 */
export class FailureStreak {
  private failures = 0;
  private firstAt = 0;
  private retryAt = 0;

  constructor(
    private readonly logger: FailureStreakLogger,
    /** What fails, as the subject of a sentence: "Claiming jobs". */
    private readonly what: string,
    /** The loop's own period, in ms: the step of the back-off. */
    private readonly period: number,
    /** False for a loop that keeps its period while failing: only the log line changes. */
    private readonly backsOff = true,
    private readonly now: () => number = Date.now,
  ) {}

  private get maxDelay(): number {
    return Math.max(this.period, MAX_OUTAGE_BACKOFF_MS);
  }

  /** False while backing off after a failure: the loop skips this round. */
  canTry(): boolean {
    return this.now() >= this.retryAt;
  }

  /** Notes a failed try; logs only the first of a streak. */
  failed(error: unknown): void {
    const now = this.now();
    this.failures++;
    this.retryAt = now + Math.min(this.period * (2 ** Math.min(this.failures - 1, 20) - 1), this.maxDelay);
    if (this.failures > 1) return;
    this.firstAt = now;
    const retrying = this.backsOff ? `retrying with a back-off of up to ${this.maxDelay} ms` : `retrying every ${this.period} ms`;
    this.logger.error(`${this.what} failed; ${retrying}, and logging again only once it works: ${String(error)}`);
  }

  /** Notes a successful try; logs the end of a streak of failures. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.log(`${this.what} works again, after ${this.failures} failed tries over ${this.now() - this.firstAt} ms`);
    this.failures = 0;
    this.retryAt = 0;
  }
}
