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
 * loop backs off (its period, doubling per failure, capped at the larger of its period and
 * `MAX_OUTAGE_BACKOFF_MS`: bounded, so work resumes within seconds of the database's return). The first
 * success after failures is logged too.
 */
export class FailureStreak {
  private failures = 0;
  private firstAt = 0;
  private retryAt = 0;

  constructor(
    private readonly logger: FailureStreakLogger,
    /** What fails, as the subject of a sentence: "Claiming jobs". */
    private readonly what: string,
    /** The loop's own period, in ms: the first back-off. */
    private readonly period: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while the loop's last try failed. */
  get failing(): boolean {
    return this.failures > 0;
  }

  /** False while backing off after a failure: the loop skips this round. */
  canTry(): boolean {
    return this.now() >= this.retryAt;
  }

  /** Notes a failed try; logs only the first of a streak. */
  failed(error: unknown): void {
    const now = this.now();
    this.failures++;
    const delay = Math.min(this.period * 2 ** Math.min(this.failures - 1, 20), Math.max(this.period, MAX_OUTAGE_BACKOFF_MS));
    this.retryAt = now + delay;
    if (this.failures > 1) return;
    this.firstAt = now;
    this.logger.error(
      `${this.what} failed; retrying with a back-off of up to ${Math.max(this.period, MAX_OUTAGE_BACKOFF_MS)} ms, ` +
        `and logging again only once it works: ${String(error)}`,
    );
  }

  /** Notes a successful try; logs the end of a streak of failures. */
  succeeded(): void {
    if (this.failures === 0) return;
    this.logger.log(`${this.what} works again, after ${this.failures} failed tries over ${this.now() - this.firstAt} ms`);
    this.failures = 0;
    this.retryAt = 0;
  }
}
