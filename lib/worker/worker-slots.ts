/**
 * The slot accounting of one worker, the invariant the poller relies on: at most `concurrency` jobs are started
 * (running, or their outcome being saved) at once; a slot whose outcome's write is queued may be claimed for
 * again, and a job that arrives before that write lands waits here for it. Pure bookkeeping: no timers, no I/O.
 */
export class WorkerSlots<TJob> {
  /** Jobs started and not settled. Never more than `concurrency`. */
  private started = 0;
  /** Of those, the ones whose outcome's write is queued: their slots are free as soon as it lands. */
  private writing = 0;
  /** Jobs routed here that wait for a slot; handed back unstarted at shutdown. */
  private readonly waiting: TJob[] = [];
  private accepting = true;

  constructor(readonly concurrency: number) {}

  /**
   * Slots the poller may claim for now: free ones, and those whose outcome is already queued for writing, less
   * the jobs already waiting for one. The claim queues behind that write on the same connection (SQLite), so
   * its jobs usually find the slot free; where statements do not run in order (a pool), they wait in `waiting`.
   */
  get freeSlots(): number {
    return this.accepting ? Math.max(0, this.concurrency - this.started + this.writing - this.waiting.length) : 0;
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
    if (this.accepting && this.started < this.concurrency) {
      this.started++;
      return true;
    }
    this.waiting.push(job);
    return false;
  }

  /** The outcome of a started job is queued for writing: its slot may be claimed for (see `freeSlots`). */
  writeQueued(): void {
    this.writing++;
  }

  /**
   * A started job settled (its outcome written, or none to write). Returns the waiting job that takes its slot,
   * already counted as started, if any and if still accepting.
   */
  release(hadQueuedWrite: boolean): TJob | undefined {
    this.started--;
    if (hadQueuedWrite) this.writing--;
    if (!this.accepting) return undefined;
    const next = this.waiting.shift();
    if (next !== undefined) this.started++;
    return next;
  }

  /** Starts nothing more; `freeSlots` is 0 from now on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Removes and returns every waiting job (for the caller to hand back unstarted). */
  takeWaiting(): TJob[] {
    return this.waiting.splice(0);
  }

  /** Removes and returns the first waiting job that matches, if any. */
  removeWaiting(matches: (job: TJob) => boolean): TJob | undefined {
    const index = this.waiting.findIndex(matches);
    return index < 0 ? undefined : this.waiting.splice(index, 1)[0];
  }
}
