import { Logger } from '@nestjs/common';
import { Observable, Subscription, filter } from 'rxjs';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { JobEventBus } from '../events/job-event-bus';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { FinishedJobStatus } from '../interfaces/job-info.interface';
import { ProcessorOptions } from '../interfaces/processor-options.interface';
import { QueueProcessor } from '../interfaces/queue-processor.interface';
import { AttemptRef, JobRecord, LimitStorage, SnoozeStorage } from '../storage/queue-storage.interface';
import { SnoozeLimitError } from '../errors/snooze-limit.error';
import { MODULE_DEFAULTS, PROCESSOR_DEFAULTS } from '../module-defaults.constants';
import { toJobError } from '../utils/error.util';
import { REMOVE_ON_COMPLETE, REMOVE_ON_FAIL } from '../utils/job-name.util';
import { AttemptRunner, AttemptStorage, RunningAttempt } from './attempt-runner';
import { LazyAbortController } from './lazy-abort-controller';
import { SavableOutcome } from './outcome';
import { OutcomeWriter, UnbatchedWrite } from './outcome-writer';
import { WorkerSlots } from './worker-slots';
import { QueueTelemetry } from '../telemetry/queue-telemetry';

/** What a queue's worker uses: its attempts' storage, and a RateLimitError's pause. */
type WorkerStorage = AttemptStorage & Pick<LimitStorage, 'rateLimit'> & SnoozeStorage;

/** What a worker needs from the process around it. */
export interface QueueWorkerContext {
  storage: WorkerStorage;
  /** Shared by the process's workers: outcomes are written in batches. */
  outcomes: OutcomeWriter;
  workerId: string;
  defaultBackoff: BackoffOptions;
  events: JobEventBus;
  /** OpenTelemetry spans of each attempt; absent when off or not installed. */
  telemetry?: QueueTelemetry;
  logger: Logger;
  /** A slot freed up: the poller may claim again. */
  onSlotFreed(): void;
  /** A retry was written to fall due at `runAt`. */
  onRetryScheduled(runAt: number): void;
  /** A job of this queue reached a finished status: retention may have work. */
  onFinished(queue: string, status: FinishedJobStatus): void;
  /** A job added with `removeOnComplete` / `removeOnFail` reached that outcome: delete it soon. */
  onRemovable?(id: string, status: 'completed' | 'failed'): void;
  /** A handler's RateLimitError paused this queue until `until` (epoch ms). */
  onRateLimited?(queue: string, until: number): void;
  /** Most snoozes per job (module option `maxSnoozes`, default 1,000): one more fails the job with SnoozeLimitError. */
  maxSnoozes?: number;
}

/**
 * The jobs to claim ahead for a queue of `concurrency` slots whose freed slot waits `waitMs` for a claim's answer and
 * whose handlers take `handlerMs` (before rounding down and the cap at `concurrency`). Slots free at random: of the
 * `concurrency × waitMs / handlerMs` expected to free during a wait, the number that do is about Poisson-distributed,
 * and a lookahead of the mean alone left a slot idle in about half the rounds (90 % of the ideal with 1-5 ms handlers,
 * 96-100 % with this, in the real-handler benchmark). Where at least one slot is expected to free, this claims for
 * the 95th percentile, about `mean + 2√mean`; below one, the mean, so long handlers still claim nothing ahead.
 */
export function lookaheadFor(concurrency: number, waitMs: number, handlerMs: number): number {
  const mean = (concurrency * waitMs) / handlerMs;
  return mean >= 1 ? mean + 2 * Math.sqrt(mean) : mean;
}

/** The settings of one queue's processor, validated. */
export interface WorkerSettings extends ProcessorOptions {
  concurrency: number;
}

/**
 * Runs one queue's jobs with its processor, at most `concurrency` at a time, and records each outcome.
 * It never claims: the shared poller asks it for free slots and routes claimed jobs to it. The pieces: slots
 * (WorkerSlots), running one attempt (AttemptRunner), saving outcomes (the process's OutcomeWriter); this class
 * wires them, announces outcomes, and handles cancel and shutdown.
 */
export class QueueWorker {
  private readonly running = new Map<string, RunningAttempt>();
  private readonly shutdown = new AbortController();
  private readonly slots: WorkerSlots<JobRecord>;
  private readonly runner: AttemptRunner;
  private subscription?: Subscription;
  private idleWaiters: (() => void)[] = [];
  /** Until when a RateLimitError of this queue paused it (epoch ms): jobs routed before then go back unstarted. */
  private rateLimitedUntil = 0;
  /** The last pause being written: jobs go back only once it has landed. */
  private pauseWritten: Promise<void> = Promise.resolve();
  /** Jobs routed during that pause in this turn of the event loop: a claim routes its jobs together. */
  private refused: AttemptRef[] = [];
  /** Jobs on their way back unstarted after a RateLimitError: still ours (leases kept, shutdown waits) until released. */
  private returning: AttemptRef[] = [];
  /**
   * By job id, its next attempt, claimed while the previous attempt's outcome (a retry) was still being saved: it holds
   * its slot and starts once that save has settled.
   */
  private readonly following = new Map<string, JobRecord>();
  /**
   * Some job of this queue claimed by this process carried a group: its claims serve groups in turn from then on
   * (see `WorkerPool`). Until then they take the plain path, which costs nothing for a queue without groups.
   */
  seenGroups = false;
  /** Mean time (ms) a handler of this queue takes, a moving average: 0 until one has finished. */
  private handlerMs = 0;

  constructor(
    readonly queue: string,
    readonly processorName: string,
    processor: QueueProcessor,
    readonly settings: WorkerSettings,
    private readonly context: QueueWorkerContext,
  ) {
    this.slots = new WorkerSlots(settings.concurrency, settings.prefetch ?? PROCESSOR_DEFAULTS.prefetch);
    this.runner = new AttemptRunner({
      queue,
      processor,
      timeout: settings.timeout,
      backoff: settings.backoff ?? context.defaultBackoff,
      storage: context.storage,
      workerId: context.workerId,
      events: context.events,
      telemetry: context.telemetry,
      logger: context.logger,
      isCurrent: (attempt) => !attempt.abandoned && this.running.get(attempt.record.id) === attempt,
      now: Date.now,
    });
    // A queue with limits hands off nothing from its first job on (see claimableSlots).
    this.claimableSlots(0);
  }

  /**
   * Jobs the poller may claim for now: free slots, those whose job's outcome is already queued for writing, and
   * the processor's `prefetch` (see WorkerSlots). By default the claim queues behind that write on the same
   * connection, so by the time its jobs arrive the write has landed and the slot is free: SQLite's thread goes
   * from one statement to the next without waiting for this thread, and a job still starts only after the
   * previous outcome in its slot is saved. Where statements do not run in order (a connection pool), a job that
   * arrives first waits for its slot.
   */
  get freeSlots(): number {
    return this.slots.freeSlots;
  }

  /**
   * The jobs the poller may claim for this round, `roundTripMs` being how long a freed slot now waits for a claim's
   * answer (see SharedPoller). With `prefetch: 'auto'` (the default) that is the free slots plus the slots expected to
   * free meanwhile: `concurrency × roundTripMs / mean handler time`, with a margin for chance once at least one is
   * expected (`lookaheadFor`), rounded down. Such a job waits here a few claim round trips at most, about what any
   * other process would need to take it too; with handlers long beside a round trip the lookahead is 0 and a job is
   * claimed only for a free slot. Queues with limits or groups keep `prefetch: 0`'s way:
   * their claims count running rows in the database, which a claim sent before the previous outcome lands would
   * find still running, and nothing would claim again for that slot once the write has landed.
   */
  claimableSlots(roundTripMs: number): number {
    if (this.slots.adaptive) {
      const { limiter, globalConcurrency, groupConcurrency } = this.settings;
      const exact = limiter !== undefined || globalConcurrency !== undefined || groupConcurrency !== undefined || this.seenGroups;
      const expected = exact || this.handlerMs === 0 ? 0 : lookaheadFor(this.settings.concurrency, roundTripMs, this.handlerMs);
      this.slots.setLookahead(expected, !exact);
    }
    return this.slots.freeSlots;
  }

  /**
   * The attempts this worker holds: running, being saved, waiting for a slot, or being handed back unstarted. With
   * `claimedBefore` (epoch ms), only those claimed before then, and those being handed back (the heartbeat skips
   * leases its claim has just written).
   */
  heldAttempts(claimedBefore = Infinity): AttemptRef[] {
    const held = [...this.running.values()].map(({ record }) => record).concat(this.slots.waitingJobs, [...this.following.values()]);
    const refs: AttemptRef[] = [];
    const now = claimedBefore === Infinity ? Infinity : Date.now();
    for (const record of held) {
      // A claimed record's startedAt is its claim's clock reading, the one its lease was counted from. One claimed
      // "after now" (the wall clock was set back since) counts as old: it is renewed rather than skipped until then.
      const claimedAt = record.startedAt ?? 0;
      if (claimedAt < claimedBefore || claimedAt > now) refs.push({ id: record.id, attempt: record.attempts });
    }
    return refs.concat(this.returning);
  }

  /** Subscribes this worker to its own slice of the shared job stream. */
  attach(jobs$: Observable<JobRecord>): void {
    // The poller never routes more jobs than `freeSlots`, so a job almost always starts at once; a buffering
    // operator such as mergeMap(concurrency) cost 15 % of end-to-end throughput here.
    this.subscription = jobs$.pipe(filter((job) => job.queue === this.queue)).subscribe((job) => {
      // A claim that was in flight when a RateLimitError paused the queue: its jobs would start during the pause,
      // each to hit the limit again. (No clock read on the plain path: the field is 0 until a queue is limited.)
      if (this.rateLimitedUntil > 0 && Date.now() < this.rateLimitedUntil) return this.refuse(job);
      if (job.group && !this.seenGroups) {
        this.seenGroups = true;
        this.claimableSlots(0);
      }
      if (this.slots.admit(job)) this.start(job);
    });
  }

  /** Stops taking new jobs; running ones go on. */
  stopAccepting(): void {
    this.slots.stopAccepting();
  }

  /** Removes the jobs that wait for a slot and returns their attempts, for the caller to hand back unstarted. */
  takeUnstarted(): AttemptRef[] {
    return this.slots
      .takeWaiting()
      .concat(this.dropFollowing())
      .map((record) => ({ id: record.id, attempt: record.attempts }));
  }

  /** Resolves once nothing is running, being saved, or being handed back. */
  whenIdle(): Promise<void> {
    if (this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Aborts every running job (`reason` becomes its signal's reason) and returns their attempts for the caller
   * to hand back; whatever those handlers do afterwards is not saved.
   */
  abortRunning(reason: Error): AttemptRef[] {
    this.shutdown.abort(reason);
    // Not started yet: they never will, and go back with the running ones.
    const refs: AttemptRef[] = this.dropFollowing().map((record) => ({ id: record.id, attempt: record.attempts }));
    for (const attempt of this.running.values()) {
      attempt.abandoned = true;
      attempt.controller.abort(reason);
      refs.push({ id: attempt.record.id, attempt: attempt.record.attempts });
    }
    return refs;
  }

  /** An operator cancelled this job: abort its signal and keep its outcome out of the database. */
  cancelRunning(id: string): boolean {
    // Not started: it never starts; its previous attempt is done with and stays as it is.
    const following = this.dropFollowing(id)[0];
    const waiting = following ?? this.slots.removeWaiting((record) => record.id === id);
    if (waiting) {
      // Not started: it simply never runs (the database already says cancelled).
      this.context.events.emit({ type: 'cancelled', queue: this.queue, jobId: id, attempt: waiting.attempts });
      return true;
    }
    const attempt = this.running.get(id);
    if (!attempt || attempt.abandoned) return false;
    attempt.abandoned = true;
    attempt.controller.abort(new JobCancelledError(id));
    this.context.events.emit({ type: 'cancelled', queue: this.queue, jobId: id, attempt: attempt.record.attempts });
    return true;
  }

  /** Unsubscribes from the job stream. */
  detach(): void {
    this.subscription?.unsubscribe();
    this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** Runs a job that `slots` has already counted as started. */
  private start(record: JobRecord): void {
    // A rejection here would otherwise surface as an unhandled rejection: whatever one job does, log it and
    // keep the queue going.
    this.execute(record).catch((error: unknown) =>
      this.context.logger.error(`Job ${record.id} (queue ${this.queue}): unexpected error in the worker: ${String(error)}`),
    );
  }

  private async execute(record: JobRecord): Promise<void> {
    // Claimed again while its previous attempt's outcome (a retry) is still being saved: the claim saw that write
    // commit, so its answer is on the way, and the previous attempt's event must come before this one's 'active'.
    // Where statements run side by side (PostgreSQL's pool), the claim's answer can arrive first.
    const saving = this.running.get(record.id);
    if (saving && saving.writeQueued && !saving.abandoned) {
      this.following.set(record.id, record);
      return;
    }
    const attempt: RunningAttempt = { record, controller: new LazyAbortController(), abandoned: false, writeQueued: false };
    // The same job claimed again while an earlier run is still here: that run was cancelled and retried before
    // our heartbeat noticed, and it may even carry the same attempt number (retry starts a fresh count), so
    // only this flag keeps its late outcome from landing on the new run.
    const stale = this.running.get(record.id);
    if (stale && !stale.abandoned) {
      stale.abandoned = true;
      stale.controller.abort(new JobCancelledError(record.id));
    }
    this.running.set(record.id, attempt);
    try {
      if (this.context.events.observed)
        this.context.events.emit({ type: 'active', queue: this.queue, jobId: record.id, attempt: record.attempts });
      const began = this.slots.adaptive ? performance.now() : 0;
      const outcome = await this.runner.run(attempt);
      if (outcome.kind === 'abandoned' || attempt.abandoned) return;
      if (began > 0) this.noteHandlerTime(performance.now() - began);
      if (outcome.kind === 'rateLimited') return await this.rateLimited(record, outcome.until);
      const final = outcome.kind === 'snooze' ? await this.snoozed(record, outcome.runAt, outcome.delay) : outcome;
      if (final === null) return;
      // With a prefetch (or 'auto') the slot's next job does not wait for this write at all: not even for the batch
      // ahead of it. The poller hears of the slot now, as the handler returns, not once a batch takes the outcome.
      if (this.slots.handsOff) this.writeQueued(attempt);
      const saved = await this.context.outcomes.save({
        ref: { id: record.id, attempt: record.attempts },
        queue: this.queue,
        outcome: final,
        logger: this.context.logger,
        signal: this.shutdown.signal,
        onQueued: () => this.writeQueued(attempt),
      });
      if (saved) this.announce(record, saved);
    } finally {
      // A newer run of the same job (cancelled, then retried) may have taken the entry: leave it alone.
      if (this.running.get(record.id) === attempt) this.running.delete(record.id);
      this.settle(attempt.writeQueued);
      const next = this.following.get(record.id);
      if (next) {
        this.following.delete(record.id);
        this.start(next);
      }
    }
  }

  /**
   * Writes a snooze: null once written (or lost), or the failure to save instead when the job crossed `maxSnoozes`.
   * A write the database refuses is logged; the job's lease then expires and recovery requeues it, as after a crash.
   */
  private async snoozed(record: JobRecord, runAt: number, delay: number): Promise<SavableOutcome | null> {
    const ref = { id: record.id, attempt: record.attempts };
    const { storage, workerId, logger } = this.context;
    const maxSnoozes = this.context.maxSnoozes ?? MODULE_DEFAULTS.maxSnoozes;
    let written: 'snoozed' | 'exhausted' | 'lost';
    try {
      // Through the writer's retry rule, like every other outcome: a busy database must not strand the job.
      written = await this.context.outcomes.retrying(this.unbatched(ref, 'snooze'), () =>
        storage.snooze(ref, workerId, { runAt, delay }, maxSnoozes, Date.now()),
      );
    } catch (error) {
      logger.error(`Job ${record.id} (queue ${this.queue}): saving its snooze failed; its lease will expire and free it: ${String(error)}`);
      return null;
    }
    if (written === 'exhausted') {
      const error = new SnoozeLimitError(record.id, maxSnoozes);
      logger.error(`Job ${record.id} (queue ${this.queue}) attempt ${record.attempts}: ${error.message}`);
      return { kind: 'fail', error: toJobError(error, record.attempts) };
    }
    if (written === 'lost') {
      logger.warn(`Job ${record.id} (queue ${this.queue}): no longer owned when its snooze was saved; snooze discarded`);
      return null;
    }
    const { events } = this.context;
    if (events.observed) {
      events.emit({ queue: this.queue, jobId: record.id, attempt: record.attempts, type: 'snoozed', nextRunAt: new Date(runAt), delay });
    }
    this.context.onRetryScheduled(runAt);
    return null;
  }

  /**
   * Pauses the queue for every process and hands the job back unspent, with the jobs claimed for this queue that have
   * not started (prefetched, or routed during the pause): they would otherwise start during the pause, each to hit the
   * limit again. Its slot frees when `execute` settles.
   */
  private async rateLimited(record: JobRecord, until: number): Promise<void> {
    // In the same tick: the waiting jobs taken, later ones refused, and the poller told, so no claim takes their room.
    this.rateLimitedUntil = Math.max(this.rateLimitedUntil, until);
    const prefetched = this.takeUnstarted();
    this.context.onRateLimited?.(this.queue, until);
    this.pauseWritten = this.writePause(record, until);
    await this.handBackUnstarted(prefetched);
  }

  /** Writes the pause and hands the job back; never rejects (a failure is logged, the lease frees the job). */
  private async writePause(record: JobRecord, until: number): Promise<void> {
    const ref = { id: record.id, attempt: record.attempts };
    try {
      const owned = await this.context.outcomes.retrying(this.unbatched(ref, 'rateLimit'), () =>
        this.context.storage.rateLimit(this.queue, ref, this.context.workerId, until, Date.now()),
      );
      if (!owned) this.context.logger.warn(`Job ${record.id} (queue ${this.queue}): no longer owned when handed back after RateLimitError`);
    } catch (error) {
      this.context.logger.error(
        `Job ${record.id} (queue ${this.queue}): pausing the queue after RateLimitError failed; the job's lease will expire and free it: ${String(error)}`,
      );
    }
  }

  /** What the outcome writer needs to retry a write of `kind` for this attempt, and to stop at shutdown. */
  private unbatched(ref: AttemptRef, kind: string): UnbatchedWrite {
    return { ref, queue: this.queue, kind, logger: this.context.logger, signal: this.shutdown.signal };
  }

  /** Hands a job routed during the pause back with the others its claim routed: one statement for them all. */
  private refuse(job: JobRecord): void {
    if (this.refused.push({ id: job.id, attempt: job.attempts }) > 1) return;
    queueMicrotask(() => void this.handBackUnstarted(this.refused.splice(0)));
  }

  /**
   * Hands back, unspent, jobs that must not start during a RateLimitError pause; once the pause is written, so no
   * process claims them before it sees the pause. Never rejects.
   */
  private async handBackUnstarted(refs: AttemptRef[]): Promise<void> {
    this.returning.push(...refs);
    try {
      await this.pauseWritten;
      if (refs.length > 0) await this.context.storage.release(refs, this.context.workerId, Date.now());
    } catch (error) {
      this.context.logger.error(
        `Jobs ${refs.map((ref) => ref.id).join(', ')} (queue ${this.queue}): handing back jobs claimed before a RateLimitError ` +
          `pause failed; their leases will expire and free them: ${String(error)}`,
      );
    } finally {
      this.returning = this.returning.filter((ref) => !refs.includes(ref));
      this.notifyIfIdle();
    }
  }

  /** A handler took `ms`: the moving average the lookahead reads (weight 1/8 on the newest). */
  private noteHandlerTime(ms: number): void {
    this.handlerMs = this.handlerMs === 0 ? ms : this.handlerMs + (ms - this.handlerMs) / 8;
  }

  /** The attempt's outcome is queued for writing: offer its slot to the poller (see `freeSlots`). */
  private writeQueued(attempt: RunningAttempt): void {
    if (attempt.writeQueued) return;
    attempt.writeQueued = true;
    const next = this.slots.writeQueued();
    if (next) this.start(next);
    this.context.onSlotFreed();
  }

  private announce(record: JobRecord, outcome: SavableOutcome): void {
    const { events } = this.context;
    if (outcome.kind === 'complete') {
      // The common case, once per job: no event object unless someone listens.
      // It carries what was stored, as `getJob().result` will show it.
      if (events.observed) {
        const result: unknown = outcome.json === null ? null : JSON.parse(outcome.json);
        events.emit({ queue: this.queue, jobId: record.id, attempt: record.attempts, type: 'completed', result });
      }
      this.context.onFinished(this.queue, 'completed');
      if (record.removeOn && record.removeOn & REMOVE_ON_COMPLETE) this.context.onRemovable?.(record.id, 'completed');
      return;
    }
    const base = { queue: this.queue, jobId: record.id, attempt: record.attempts };
    switch (outcome.kind) {
      case 'retry':
        events.emit({ ...base, type: 'retrying', error: outcome.error, nextRunAt: new Date(outcome.runAt) });
        this.context.onRetryScheduled(outcome.runAt);
        return;
      case 'fail':
        events.emit({ ...base, type: 'failed', error: outcome.error });
        this.context.onFinished(this.queue, 'failed');
        if (record.removeOn && record.removeOn & REMOVE_ON_FAIL) this.context.onRemovable?.(record.id, 'failed');
        return;
    }
  }

  /**
   * Takes the jobs following a previous attempt's save (or the one of job `id`) out, never to start, and frees their
   * slots; returns them.
   */
  private dropFollowing(id?: string): JobRecord[] {
    const dropped = id === undefined ? [...this.following.values()] : [this.following.get(id)].filter((job) => job !== undefined);
    for (const job of dropped) {
      this.following.delete(job.id);
      this.settle(false);
    }
    return dropped;
  }

  /** A started job is done with its slot; `hadQueuedWrite`: its outcome's write was queued (the poller knows). */
  private settle(hadQueuedWrite: boolean): void {
    const offered = this.slots.freeSlots;
    const next = this.slots.release(hadQueuedWrite);
    // No write was queued (cancelled, handed back): the slot is news to the poller. A landed write is news too when
    // the jobs held were at their bound (outcomes landing slower than handlers end): its slot was offered at the queueing
    // but could not be claimed for until now.
    if (!hadQueuedWrite || this.slots.freeSlots > offered) this.context.onSlotFreed();
    if (next) this.start(next);
    this.notifyIfIdle();
  }

  private get idle(): boolean {
    return this.slots.idle && this.returning.length === 0;
  }

  private notifyIfIdle(): void {
    if (this.idle) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}
