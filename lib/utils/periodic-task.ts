import { FailureStreak, FailureStreakLogger } from './failure-streak';

/** Settings of a periodic task. */
export interface PeriodicTaskOptions {
  /** What runs, as the subject of a sentence in the failure log: "Recovering expired leases". */
  what: string;
  /** Ms between two runs; also the step of the back-off while failing. */
  period: number;
  logger: FailureStreakLogger;
  /** False for a task that keeps its period while failing (the heartbeat): only the log line changes. Default true. */
  backsOff?: boolean;
  /** Run once as soon as the task starts, not only after the first period. Default false. */
  runOnStart?: boolean;
  /** The wall clock (epoch ms); injectable for tests. */
  now?: () => number;
}

/**
 * One run of a periodic task. It throws when it failed; it returns `false` when it had nothing to try (no
 * statement ran), which neither ends nor extends a failure streak.
 */
export type PeriodicRun = () => Promise<boolean | void>;

/** The task's life: it runs only while `running`, and `stop()` is its single way out. */
const TaskMode = { Idle: 'idle', Running: 'running', Stopped: 'stopped' } as const;
type TaskMode = (typeof TaskMode)[keyof typeof TaskMode];

/**
 * A background loop of the runtime (lease heartbeat and recovery, schedules, retention): runs every `period`,
 * never overlaps itself (a tick that finds a run in progress is dropped; an explicit `runNow` waits for it and
 * follows), logs a database outage once and backs off through a `FailureStreak`, and `stop()` waits for the
 * run in progress. `start` and `stop` are idempotent.
 */
export class PeriodicTask {
  private mode: TaskMode = TaskMode.Idle;
  private interval?: NodeJS.Timeout;
  private wakeTimer?: NodeJS.Timeout;
  private wakeTimerAt = Infinity;
  private inFlight?: Promise<void>;
  /** A `runNow` arrived during a run: run again as soon as it ends. */
  private runAgain = false;
  private readonly now: () => number;
  /** The outage state of this task (first failure logged, back-off, recovery logged). */
  readonly failures: FailureStreak;

  constructor(
    private readonly run: PeriodicRun,
    private readonly options: PeriodicTaskOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.failures = new FailureStreak(options.logger, options.what, options.period, options.backsOff ?? true, this.now);
  }

  /** True while a run is in progress. */
  get busy(): boolean {
    return this.inFlight !== undefined;
  }

  /** Starts the period timer (and the first run when `runOnStart`). A second call, or one after `stop()`, does nothing. */
  start(): void {
    if (this.mode !== TaskMode.Idle) return;
    this.mode = TaskMode.Running;
    this.interval = setInterval(() => this.tick(), this.options.period);
    if (this.options.runOnStart) this.tick();
  }

  /** Runs now, or right after the run in progress; still skipped while backing off from a failure. */
  runNow(): void {
    if (this.mode !== TaskMode.Running) return;
    if (this.inFlight) this.runAgain = true;
    else this.tick();
  }

  /**
   * Runs at `at` (epoch ms), as `runNow` would then. One timer is kept, for the earliest time asked for; later
   * times are left to the period (a task that asks again after each run, like the scheduler, loses nothing).
   */
  runAt(at: number): void {
    if (this.mode !== TaskMode.Running || at >= this.wakeTimerAt) return;
    clearTimeout(this.wakeTimer);
    this.wakeTimerAt = at;
    this.wakeTimer = setTimeout(() => this.wakeTimerFired(), Math.max(0, at - this.now()));
  }

  /** Stops the timers and waits for the run in progress. Idempotent. */
  async stop(): Promise<void> {
    this.mode = TaskMode.Stopped;
    clearInterval(this.interval);
    clearTimeout(this.wakeTimer);
    this.wakeTimerAt = Infinity;
    this.runAgain = false;
    await this.inFlight;
  }

  private wakeTimerFired(): void {
    const at = this.wakeTimerAt;
    this.wakeTimerAt = Infinity;
    // A timer can fire a moment before Date.now() reaches its time (timers run on a monotonic clock): wait out the rest.
    if (this.now() < at) return this.runAt(at);
    this.runNow();
  }

  private tick(): void {
    if (this.mode !== TaskMode.Running || this.inFlight) return;
    // Backing off while the database fails: neither a tick nor a wake-up is a reason to try sooner.
    if (this.options.backsOff !== false && !this.failures.canTry()) return;
    this.inFlight = this.execute().finally(() => {
      this.inFlight = undefined;
      if (!this.runAgain) return;
      this.runAgain = false;
      this.tick();
    });
  }

  private async execute(): Promise<void> {
    try {
      if ((await this.run()) !== false) this.failures.succeeded();
    } catch (error) {
      this.failures.failed(error);
    }
  }
}
