import { Logger } from '@nestjs/common';
import { Observable, Subject, asapScheduler, asyncScheduler, merge, takeUntil, throttleTime, timer } from 'rxjs';
import { AttemptRef, ClaimStorage, JobRecord, LimitStorage, StorageLifecycle } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';
import { GroupClaimCursors } from './group-claim-cursors';
import { LimitWatch } from './limit-watch';
import { exhaustMapWithTrailing } from './exhaust-map-with-trailing.operator';
import { SlotWaitEstimate } from './slot-wait-estimate';
import { WorkerPool } from './worker-pool';

/** What the poller uses: claims and hand-backs, the limits of rate-limited queues, and the storage's fault. */
type PollerStorage = ClaimStorage & LimitStorage & Pick<StorageLifecycle, 'fault'>;

/** Most wake times kept at once: beyond them, due jobs wait for the fallback poll (at most `pollInterval`). */
export const MAX_WAKE_TIMES = 64;

/** Settings of the shared poller. */
export interface SharedPollerSettings {
  workerId: string;
  pollInterval: number;
  batchWindow: number;
  batchSize: number;
  leaseDuration: number;
}

/** The poller's life: it claims only while `running`, and `stop()` is its single way out. */
const PollerMode = { Idle: 'idle', Running: 'running', Stopped: 'stopped' } as const;
type PollerMode = (typeof PollerMode)[keyof typeof PollerMode];

/** What one claim round brought: the jobs to route, and whether a queue got all it asked for (it may have more). */
interface ClaimedRound {
  jobs: JobRecord[];
  full: boolean;
}

const NOTHING_CLAIMED: ClaimedRound = { jobs: [], full: false };

/**
 * The one poller of the process. Wake-ups (insert hints from the database, slots freed by workers, a
 * fallback timer) are merged over `batchWindow` into one claim; claims run one at a time, a wake-up during
 * one bringing one more after it; each is a single statement for every queue with free slots. The stream
 * emits each round's claimed jobs, each to the stream of its queue (`jobsOf`), which that queue's worker reads.
 */
export class SharedPoller {
  private readonly wake$ = new Subject<void>();
  private readonly stop$ = new Subject<void>();
  /** One stream per queue: a claimed job goes straight to its queue's worker, not through every worker's filter. */
  private readonly queueSubjects = new Map<string, Subject<JobRecord>>();
  /**
   * A wake-up is on its way to a claim round (each one that reaches the pipeline ends in a round: at once, or as the
   * one kept during a round in flight). Further wake-ups until that round starts would bring nothing more: every
   * finished job of a completion batch asks for one, and each went through the whole operator chain.
   */
  private wakePending = false;
  private mode: PollerMode = PollerMode.Idle;
  /** Settles when the pipeline has completed: after `stop()`, once the claim in flight has ended. */
  private finished?: Promise<void>;
  private readonly claimFailures: FailureStreak;
  private wakeTimer?: NodeJS.Timeout;
  private wakeTimerAt = Infinity;
  /** Times `wakeAt` asked for, ascending, distinct, at most `MAX_WAKE_TIMES`. */
  private readonly wakeTimes: number[] = [];
  private lastRound: number | null = null;
  /**
   * How long a freed slot waits for its next job: from the wake-up a worker asked for to the claim that answered it
   * (the batch window, a claim already in flight, and this one's round trip). The workers claim ahead for the slots
   * expected to free meanwhile.
   */
  private readonly slotWait = new SlotWaitEstimate();
  /** When the wake-up that the next round answers was asked for (performance.now()); undefined for a timer's round. */
  private wokeAt?: number;
  private readonly limits: LimitWatch;
  /** When the held-back groups of queues with a group limiter open again: the queue itself stays open meanwhile. */
  private readonly groupLimits: LimitWatch;
  /** Where each grouped queue's next claim walk starts. */
  private readonly groupCursors = new GroupClaimCursors();

  /** The claimed jobs of `queue`, each once: what that queue's worker subscribes to. */
  jobsOf(queue: string): Observable<JobRecord> {
    let subject = this.queueSubjects.get(queue);
    if (subject === undefined) this.queueSubjects.set(queue, (subject = new Subject<JobRecord>()));
    return subject.asObservable();
  }

  constructor(
    private readonly storage: PollerStorage,
    private readonly pool: WorkerPool,
    private readonly settings: SharedPollerSettings,
    private readonly logger: Logger,
  ) {
    this.claimFailures = new FailureStreak(logger, 'Claiming jobs', settings.pollInterval);
    this.limits = new LimitWatch((queue) => pool.rateWindowOf(queue));
    this.groupLimits = new LimitWatch(
      (queue) => pool.groupWindowOf(queue),
      (request) => request.groupRateLimited === true,
    );
  }

  /**
   * Epoch ms of the last claim round that ended without a database error (including rounds that had no
   * free slot to fill): the poller's pulse, for health checks.
   */
  get lastRoundAt(): number | null {
    return this.lastRound;
  }

  /** Starts the pipeline and claims once at once. */
  start(): void {
    if (this.mode !== PollerMode.Idle) throw new Error(`SharedPoller.start() in mode ${this.mode}`);
    this.mode = PollerMode.Running;
    const fallbackTick$ = timer(0, this.settings.pollInterval);
    this.finished = new Promise<void>((resolve) => {
      merge(this.wake$, this.storage.insertHints$, fallbackTick$)
        .pipe(
          // The single way out: the wake-ups end, the claim in flight (and a kept wake-up) finish, then it completes.
          takeUntil(this.stop$),
          // A zero window still merges the wake-ups of one turn of the event loop, without a 1 ms timer per round
          // (setTimeout(0) is clamped to 1 ms, a fifth of a claim round under load).
          throttleTime(this.settings.batchWindow, this.settings.batchWindow === 0 ? asapScheduler : asyncScheduler, {
            leading: false,
            trailing: true,
          }),
          // One claim at a time; a wake-up that arrives during a claim brings one more right after it.
          exhaustMapWithTrailing(() => this.claimRound()),
        )
        .subscribe({
          next: (round) => this.route(round),
          complete: resolve,
          error: (error: unknown) => {
            // claimRound catches what the database throws: this is a bug, and the poller must say it stopped.
            this.logger.error(`The shared poller stopped on an unexpected error; no more jobs are claimed: ${String(error)}`);
            resolve();
          },
        });
    });
  }

  /** Asks for a claim soon (a slot was freed, a job was added in this process). */
  wake(): void {
    if (this.mode !== PollerMode.Running || this.wakePending) return;
    this.wakePending = true;
    this.wokeAt = performance.now();
    this.wake$.next();
  }

  /**
   * Asks for a claim at `at` (epoch ms): a delayed job, a retry or a recovered job this process wrote falls due
   * then. Up to `MAX_WAKE_TIMES` such times within the next poll are kept, each woken for in turn (jobs due at
   * different times are claimed apart); the fallback poll covers the rest.
   */
  wakeAt(at: number, evenAfterNextPoll = false): void {
    if (this.mode !== PollerMode.Running) return;
    const delay = at - Date.now();
    if (delay <= 0) return this.wake();
    if ((delay >= this.settings.pollInterval && !evenAfterNextPoll) || !insertSorted(this.wakeTimes, at)) return;
    if (at < this.wakeTimerAt) this.armWakeTimer();
  }

  /**
   * `queue` cannot be claimed before `until` (a RateLimitError of this process): leave it out of claims until then
   * and wake for it at that time, even past the next poll (the fallback poll is not aligned with it).
   */
  limitedUntil(queue: string, until: number): void {
    this.limits.close(queue, until);
    this.wakeAt(until, true);
  }

  /** Stops claiming and waits for a claim in progress; its jobs are handed back, not routed. Idempotent. */
  async stop(): Promise<void> {
    if (this.mode === PollerMode.Stopped) return;
    this.mode = PollerMode.Stopped;
    clearTimeout(this.wakeTimer);
    this.wakeTimes.length = 0;
    this.stop$.next();
    await this.finished;
    for (const subject of this.queueSubjects.values()) subject.complete();
  }

  /** Arms the one wake-up timer for the earliest wake time kept, if any. */
  private armWakeTimer(): void {
    clearTimeout(this.wakeTimer);
    const next = this.wakeTimes[0];
    this.wakeTimerAt = next ?? Infinity;
    if (next === undefined) return;
    // Capped: a wall clock set back must not leave a timer far in the future (the fallback poll goes on meanwhile).
    const delay = Math.min(Math.max(0, next - Date.now()), this.settings.pollInterval);
    this.wakeTimer = setTimeout(() => this.wakeTimerFired(), delay);
  }

  private wakeTimerFired(): void {
    const now = Date.now();
    // Timers run on a monotonic clock that Node reads once per loop turn, so one can fire a millisecond or so
    // before Date.now() reaches the time it was armed for. Claiming then finds the job not yet due, and nothing
    // would come back for it before the fallback poll: wait out the rest instead.
    if (now < this.wakeTimes[0]) return this.armWakeTimer();
    let due = 0;
    while (due < this.wakeTimes.length && this.wakeTimes[due] <= now) due++;
    this.wakeTimes.splice(0, due);
    this.wake();
    this.armWakeTimer();
  }

  private async claimRound(): Promise<ClaimedRound> {
    // From here on a wake-up asks for another round: this one has read the free slots already.
    this.wakePending = false;
    const wokeAt = this.wokeAt;
    this.wokeAt = undefined;
    if (this.mode !== PollerMode.Running) return NOTHING_CLAIMED;
    const started = Date.now();
    const requests = this.pool.claimRequests(
      this.settings.batchSize,
      (queue) => this.limits.isClosed(queue, started),
      this.slotWait.plannedMs,
    );
    if (requests.length === 0) {
      this.lastRound = Date.now();
      return NOTHING_CLAIMED;
    }
    // Backing off while the database fails: a wake-up in between is no reason to try again sooner.
    if (!this.claimFailures.canTry()) return NOTHING_CLAIMED;
    let jobs: JobRecord[];
    const sent = performance.now();
    try {
      // Each grouped queue's walk starts after the groups its last claim served (see GroupClaimCursors).
      const walked = this.groupCursors.apply(requests);
      jobs = await this.storage.claim(walked, this.settings.workerId, Date.now(), this.settings.leaseDuration);
      this.groupCursors.advance(walked, jobs);
      const answered = performance.now();
      this.slotWait.record(answered - (wokeAt ?? sent));
    } catch (error) {
      // The fallback tick retries (after the back-off); the poller itself never stops on a failed claim.
      this.claimFailures.failed(error);
      return NOTHING_CLAIMED;
    }
    this.lastRound = Date.now();
    this.claimFailures.succeeded();
    if (this.mode !== PollerMode.Running) {
      await this.handBack(jobs);
      return NOTHING_CLAIMED;
    }
    const claimedPerQueue = countBy(jobs);
    const { ask, askAgainAt } = this.limits.toCheck(requests, claimedPerQueue, started);
    // Not awaited: the round's jobs go to their workers now; the answer only schedules a later wake-up.
    if (ask.length > 0) void this.readLimits(ask);
    if (askAgainAt !== undefined) this.wakeAt(askAgainAt);
    const groups = this.groupLimits.toCheck(requests, claimedPerQueue, started);
    if (groups.ask.length > 0) void this.readGroupLimits(groups.ask);
    if (groups.askAgainAt !== undefined) this.wakeAt(groups.askAgainAt);
    return { jobs, full: requests.some((request) => claimedPerQueue.get(request.queue) === request.limit) };
  }

  /** Hands a round's jobs to the workers, in claim order. */
  private route({ jobs, full }: ClaimedRound): void {
    // RETURNING gives rows in no particular order; restore the claim order before handing them out.
    jobs.sort(claimOrder);
    for (const job of jobs) this.queueSubjects.get(job.queue)?.next(job);
    // A queue that got all it asked for may have more due jobs: go again instead of waiting for a tick.
    if (full) this.wake();
  }

  /** Asks when rate-limited queues that came back short open again, and wakes then (see LimitWatch). */
  private async readLimits(queues: string[]): Promise<void> {
    try {
      const askedAt = Date.now();
      const limited = await this.storage.limitedUntil(queues, askedAt);
      for (const [queue, until] of limited) this.limitedUntil(queue, until);
      for (const queue of queues) if (!limited.has(queue)) this.limits.open(queue, askedAt);
    } catch (error) {
      // Only a wake-up is lost: the fallback poll still claims for these queues. After stop() it is not even that.
      if (this.mode !== PollerMode.Running) return;
      this.logger.warn(`Reading the rate limits of ${queues.join(', ')} failed; their next claim waits for the poll: ${String(error)}`);
    }
  }

  /**
   * Asks when the first held-back group of each queue with a group limiter that came back short opens, and wakes then
   * (the queue is not closed: its other groups are claimed meanwhile). A queue with no group held back was drained.
   */
  private async readGroupLimits(queues: string[]): Promise<void> {
    try {
      const askedAt = Date.now();
      for (const queue of queues) {
        const opensAt = await this.storage.groupOpensAt(queue, askedAt);
        if (opensAt === null) this.groupLimits.open(queue, askedAt);
        else {
          this.groupLimits.close(queue, opensAt);
          this.wakeAt(opensAt, true);
        }
      }
    } catch (error) {
      if (this.mode !== PollerMode.Running) return;
      this.logger.warn(`Reading the group windows of ${queues.join(', ')} failed; their next claim waits for the poll: ${String(error)}`);
    }
  }

  private async handBack(jobs: JobRecord[]): Promise<void> {
    if (jobs.length === 0) return;
    const refs: AttemptRef[] = jobs.map((job) => ({ id: job.id, attempt: job.attempts }));
    try {
      await this.storage.release(refs, this.settings.workerId, Date.now());
    } catch (error) {
      this.logger.error(
        `Handing back ${refs.length} jobs claimed during shutdown failed; their leases will expire and free them: ${String(error)}`,
      );
    }
  }
}

/**
 * Adds `at` to the ascending, distinct `times`, keeping at most `MAX_WAKE_TIMES` (the latest go first).
 * False when it was already there or did not fit.
 */
function insertSorted(times: number[], at: number): boolean {
  let index = times.length;
  while (index > 0 && times[index - 1] > at) index--;
  if (times[index - 1] === at) return false;
  if (index >= MAX_WAKE_TIMES) return false;
  times.splice(index, 0, at);
  if (times.length > MAX_WAKE_TIMES) times.pop();
  return true;
}

function claimOrder(a: JobRecord, b: JobRecord): number {
  return b.priority - a.priority || a.runAt - b.runAt || Number(a.id) - Number(b.id);
}

function countBy(jobs: JobRecord[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const job of jobs) counts.set(job.queue, (counts.get(job.queue) ?? 0) + 1);
  return counts;
}
