/**
 * How long a freed slot waits for its next job, as the workers' lookahead (`prefetch: 'auto'`) plans for it: a moving
 * mean of the waits plus four times their moving mean deviation, the way a retransmission timer bounds a round trip.
 * The mean alone plans too short a wait: waits have a long tail (a claim queued behind a write or a checkpoint took
 * 5-13 ms where most took 0.2-2 ms, with 1-5 ms handlers on SQLite), and every slot that freed during such a wait found
 * no job held for it, a quarter of all the slots freed in that run.
 */
export class SlotWaitEstimate {
  private mean = 0;
  private deviation = 0;
  private recorded = false;

  /** One round's wait (ms): from the wake-up a freed slot asked for to the claim that answered it. */
  record(waitedMs: number): void {
    if (!this.recorded) {
      this.recorded = true;
      // The first wait is all there is to go by: its spread is guessed at half of it, as retransmission timers start.
      this.mean = waitedMs;
      this.deviation = waitedMs / 2;
      return;
    }
    // The deviation is taken from the mean before this wait moves it.
    this.deviation += (Math.abs(waitedMs - this.mean) - this.deviation) / 4;
    this.mean += (waitedMs - this.mean) / 8;
  }

  /** The wait (ms) the lookahead plans for: 0 before the first round. */
  get plannedMs(): number {
    return this.mean + 4 * this.deviation;
  }
}
