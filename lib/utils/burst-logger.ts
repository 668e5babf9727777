/** The logger a `BurstLogger` writes to (a Nest `Logger`). */
export interface BurstLogTarget {
  warn(message: string): void;
}

/**
 * Logs the first of a burst of like events and counts the rest, for events that come in storms (every pooled
 * connection failing at once when a database restarts). A burst ends after `quietMs` without an event; the next
 * one is logged with the number of events left unlogged before it.
 */
export class BurstLogger {
  private lastAt = -Infinity;
  private unlogged = 0;

  constructor(
    private readonly target: BurstLogTarget,
    private readonly quietMs = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Notes one event; logs `message` if it starts a burst. */
  report(message: string): void {
    const now = this.now();
    const startsBurst = now - this.lastAt > this.quietMs;
    this.lastAt = now;
    if (!startsBurst) {
      this.unlogged++;
      return;
    }
    const before = this.unlogged > 0 ? ` (${this.unlogged} like events of the previous burst were not logged)` : '';
    this.unlogged = 0;
    this.target.warn(`${message}; further ones within ${this.quietMs} ms of each other are not logged${before}`);
  }
}
