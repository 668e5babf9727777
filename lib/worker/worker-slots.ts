/**
 * The slot accounting of one worker, the invariant the poller relies on: at most `concurrency` handlers run at
 * once. By default a slot also covers its job's outcome until it is saved: a slot whose outcome's write is queued
 * may be claimed for again, and a job that arrives before that write lands waits here for it, so at most
 * `concurrency` jobs are started (running, or their outcome being saved).
 *
 * With a `prefetch`, up to that many more jobs are claimed ahead and wait here, and a slot takes its next job as
 * soon as its outcome is handed to the writer, not once it has landed: a slot that frees finds its next job already in
 * this process, and no longer waits for a claim nor for a write round trip. At most `2 × concurrency + prefetch`
 * jobs are then started (running, or their outcome in writing): as many outcomes in writing as the process may hold
 * jobs beyond its running ones. Beyond that, jobs wait for the writes to land.
 *
 * With `prefetch: 'auto'` (the default) a slot also takes its next job as soon as its outcome is handed to the
 * writer, and the jobs claimed ahead are a lookahead the worker sets before each claim (`setLookahead`): the slots
 * expected to free within one claim round trip, at most `2 × concurrency`. At most `3 × concurrency` jobs are started.
 * Whenever slots hand off, the jobs held (started, or claimed and waiting) and the next claim stay within that same
 * bound (`2 × concurrency + prefetch`, or `3 × concurrency`), however slowly outcomes land.
 * Pure bookkeeping: no timers, no I/O.
 */
export class WorkerSlots<TJob> {
  /** Jobs started and not settled (running, or their outcome being saved). */
  private started = 0;
  /** Of those, the ones whose outcome's write is queued: their slots are free as soon as it lands. */
  private writing = 0;
  /** Jobs routed here that wait for a slot; handed back unstarted at shutdown. */
  private readonly waiting: TJob[] = [];
  private accepting = true;
  /** The lookahead is set per claim (`prefetch: 'auto'`), not fixed. */
  readonly adaptive: boolean;
  /** A slot takes its next job once its outcome is handed to the writer, not once it has landed. */
  private handOff: boolean;
  /** Jobs claimed ahead of a free slot, at most, now: the fixed prefetch, or the last lookahead set. */
  private ahead: number;

  constructor(
    readonly concurrency: number,
    /** Jobs claimed ahead of a free slot, at most. 0: none beyond the slots, and a slot waits for its write. */
    prefetch: number | 'auto' = 0,
  ) {
    this.adaptive = prefetch === 'auto';
    this.ahead = prefetch === 'auto' ? 0 : prefetch;
    this.handOff = this.adaptive || this.ahead > 0;
  }

  /** Whether a slot takes its next job once its outcome is handed to the writer (a prefetch, or 'auto' unless exact). */
  get handsOff(): boolean {
    return this.handOff;
  }

  /**
   * Most jobs started at once: the slots' running jobs and, when they hand off, outcomes in writing, as many as the
   * process may hold beyond its running jobs (a slot may have two in writing when writes lag). One per slot was measured
   * and cost PostgreSQL's short handlers about 8 % of their rate; docs/delivery-and-crash-safety.md states this bound.
   */
  private get maxStarted(): number {
    return this.handOff ? 2 * this.concurrency + (this.adaptive ? this.concurrency : this.ahead) : this.concurrency;
  }

  /** Jobs claimed ahead of a free slot, at most, now. */
  get prefetch(): number {
    return this.ahead;
  }

  /**
   * With `prefetch: 'auto'`: how many jobs to claim ahead from now on, 0 to `2 × concurrency`, and whether slots hand
   * off (false: as with `prefetch: 0`, a slot's next job waits for the previous outcome to land). Ignored otherwise.
   * The cap is twice the slots, not once: with 1-5 ms handlers a lookahead capped at the slots still left a slot
   * without a job at a fifth of its frees (87-89 % of the ideal, against 92-97 % with twice), and `maxHeld` bounds
   * what the process holds in all either way.
   */
  setLookahead(jobs: number, handOff = true): void {
    if (!this.adaptive) return;
    this.ahead = handOff ? Math.max(0, Math.min(2 * this.concurrency, Math.floor(jobs))) : 0;
    this.handOff = handOff;
  }

  /**
   * Jobs the poller may claim for now: free slots, those whose outcome is already queued for writing, and the
   * prefetch, less the jobs already waiting. By default the claim queues behind that write on the same
   * connection (SQLite), so its jobs usually find the slot free; where statements do not run in order (a pool),
   * they wait in `waiting`.
   */
  get freeSlots(): number {
    if (!this.accepting) return 0;
    const running = this.started - this.writing;
    const slots = Math.min(this.concurrency - running, this.maxStarted - this.started + this.writing);
    const offered = slots + this.ahead - this.waiting.length;
    // A slot that hands off may have more than one outcome in writing when writes land slower than handlers end (a
    // busy pool): the jobs this process holds in the database (started, waiting, and the claim about to be made) stay
    // within `maxHeld` all the same, which is what a crash leaves to recover and what the docs promise.
    return Math.max(0, Math.min(offered, this.maxHeld - this.started - this.waiting.length));
  }

  /**
   * Most jobs held in the database at once (started, claimed and waiting, or being claimed): `3 × concurrency` with
   * 'auto' (whether or not slots hand off now: outcomes queued while they did may still be in writing),
   * `2 × concurrency + prefetch` with a fixed one, and `2 × concurrency` with none (a slot's job, and the one claimed
   * behind its queued write).
   */
  private get maxHeld(): number {
    return this.adaptive ? 3 * this.concurrency : 2 * this.concurrency + this.ahead;
  }

  /** Whether nothing is started (running or being saved). Waiting jobs do not count: shutdown takes them. */
  get idle(): boolean {
    return this.started === 0;
  }

  /** Whether new jobs may still start. */
  get isAccepting(): boolean {
    return this.accepting;
  }

  /** The jobs waiting for a slot, oldest first. */
  get waitingJobs(): readonly TJob[] {
    return this.waiting;
  }

  /** A job was routed here: true when it takes a slot now (counted as started), false when it waits for one. */
  admit(job: TJob): boolean {
    if (this.canStart()) {
      this.started++;
      return true;
    }
    this.waiting.push(job);
    return false;
  }

  /**
   * The outcome of a started job is queued for writing: its slot may be claimed for (see `freeSlots`). With a
   * prefetch, returns the waiting job that takes the slot now, already counted as started, if any.
   */
  writeQueued(): TJob | undefined {
    this.writing++;
    return this.handsOff ? this.nextWaiting() : undefined;
  }

  /**
   * A started job settled (its outcome written, or none to write). Returns the waiting job that takes its slot,
   * already counted as started, if any and if still accepting.
   */
  release(hadQueuedWrite: boolean): TJob | undefined {
    this.started--;
    if (hadQueuedWrite) this.writing--;
    return this.nextWaiting();
  }

  private canStart(): boolean {
    if (!this.accepting) return false;
    const running = this.started - this.writing;
    return this.handsOff ? running < this.concurrency && this.started < this.maxStarted : this.started < this.concurrency;
  }

  private nextWaiting(): TJob | undefined {
    if (this.waiting.length === 0 || !this.canStart()) return undefined;
    this.started++;
    return this.waiting.shift();
  }

  /** Starts nothing more; `freeSlots` is 0 from now on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Removes and returns every waiting job, or those that match (for the caller to hand back unstarted). */
  takeWaiting(matches?: (job: TJob) => boolean): TJob[] {
    if (matches === undefined) return this.waiting.splice(0);
    const taken = this.waiting.filter(matches);
    const kept = this.waiting.filter((job) => !matches(job));
    this.waiting.splice(0, this.waiting.length, ...kept);
    return taken;
  }

  /** Removes and returns the first waiting job that matches, if any. */
  removeWaiting(matches: (job: TJob) => boolean): TJob | undefined {
    const index = this.waiting.findIndex(matches);
    return index < 0 ? undefined : this.waiting.splice(index, 1)[0];
  }
}
