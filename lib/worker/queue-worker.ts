import { Observable, Subscription, filter } from 'rxjs';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { BatchProcessor, QueueProcessor } from '../interfaces/queue-processor.interface';
import { Job } from '../interfaces/job.interface';
import { ShutdownAbortError } from '../errors/shutdown-abort.error';
import { AttemptRef, JobRecord } from '../storage/queue-storage.interface';
import { PROCESSOR_DEFAULTS } from '../module-defaults.constants';
import { REMOVE_ON_COMPLETE } from '../utils/job-name.util';
import { lookaheadFor } from '../utils/lookahead.util';
import { AttemptRunner, RunningAttempt } from './attempt-runner';
import { BatchCollector } from './batch-collector';
import { LazyAbortController } from './lazy-abort-controller';
import { announceOutcome } from './outcome-announcer';
import { SavableOutcome } from './outcome';
import { QueueWorkerContext, WorkerSettings } from './queue-worker-context';
import { RateLimitPause } from './rate-limit-pause';
import { SnoozeWriter } from './snooze-writer';
import { WorkerSlots } from './worker-slots';

/**
 * Runs one queue's jobs with its processor, at most `concurrency` at a time, and records each outcome.
 * It never claims: the shared poller asks it for free slots and routes claimed jobs to it. The pieces: slots
 * (WorkerSlots), running one attempt (AttemptRunner), saving outcomes (the process's OutcomeWriter), announcing them
 * (announceOutcome), snoozes (SnoozeWriter) and a RateLimitError's pause (RateLimitPause); this class wires them, and
 * handles cancel and shutdown.
 */
export class QueueWorker {
  private readonly running = new Map<string, RunningAttempt>();
  private readonly shutdown = new AbortController();
  private readonly slots: WorkerSlots<JobRecord>;
  private readonly runner: AttemptRunner;
  private subscription?: Subscription;
  private readonly snoozes: SnoozeWriter;
  /** A RateLimitError's pause: the jobs it hands back unstarted are still ours (leases kept, shutdown waits). */
  private readonly rateLimit: RateLimitPause;
  private idleWaiters: (() => void)[] = [];
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
  /** A batch processor's collector: each job's attempt calls it, and it calls the processor once per batch. */
  private readonly batch?: BatchCollector;
  /** The application is shutting down: a partial batch is handed back rather than called. */
  private stopping = false;
  /** The queue's retention keeps no completed job (asked once, on the first completion). */
  private keepsNoCompleted?: boolean;

  constructor(
    readonly queue: string,
    readonly processorName: string,
    processor: QueueProcessor,
    readonly settings: WorkerSettings,
    private readonly context: QueueWorkerContext,
  ) {
    this.slots = new WorkerSlots(settings.concurrency, settings.prefetch ?? PROCESSOR_DEFAULTS.prefetch);
    // Here rather than at discovery: at shutdown the worker hands back the jobs of a batch not yet called.
    if (settings.batch) {
      this.batch = new BatchCollector(queue, processor as unknown as BatchProcessor, settings.batch, (jobs) => this.recordBatch(jobs));
    }
    this.runner = new AttemptRunner({
      queue,
      processor: this.batch ?? processor,
      timeout: settings.timeout,
      backoff: settings.backoff ?? context.defaultBackoff,
      storage: context.storage,
      workerId: context.workerId,
      events: context.events,
      telemetry: context.telemetry,
      logger: context.logger,
      isCurrent: (attempt) => !attempt.abandoned && this.running.get(attempt.record.id) === attempt,
      now: Date.now,
      schema: settings.schema,
      removesOnComplete: (record) => this.removesOnComplete(record),
      // The caller's transaction committed the completion: announced as the worker announces a saved one.
      onCommitted: (record, json) => {
        if (this.removesOnComplete(record)) this.context.recentCompletions?.remember(record, json, Promise.resolve(true));
        announceOutcome(this.context, queue, record, { kind: 'complete', json });
      },
    });
    this.snoozes = new SnoozeWriter(queue, context, this.shutdown.signal);
    this.rateLimit = new RateLimitPause(queue, context, {
      signal: this.shutdown.signal,
      takeUnstarted: (group) => this.takeUnstarted(group),
      onReturned: () => this.notifyIfIdle(),
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
   * The jobs the poller may claim for this round, `roundTripMs` being how long a freed slot may now wait for a claim's
   * answer (see SlotWaitEstimate). With `prefetch: 'auto'` (the default) that is the free slots plus the slots expected
   * to free meanwhile: `concurrency × roundTripMs / mean handler time`, with a margin for chance once at least one is
   * expected (`lookaheadFor`), rounded down, at most `2 × concurrency` (see WorkerSlots.setLookahead). Such a job
   * waits here a few claim round trips at most, about what any other process would need to take it too; with handlers
   * long beside a round trip the lookahead is 0 and a job is claimed only for a free slot. Queues with limits or
   * groups keep `prefetch: 0`'s way: their claims count running rows in the database, which a claim sent before the
   * previous outcome lands would find still running, and nothing would claim again for that slot once the write has
   * landed.
   */
  claimableSlots(roundTripMs: number): number {
    if (this.slots.adaptive) {
      const { limiter, globalConcurrency, groupConcurrency, groupLimiter } = this.settings;
      const exact =
        limiter !== undefined ||
        globalConcurrency !== undefined ||
        groupConcurrency !== undefined ||
        groupLimiter !== undefined ||
        this.seenGroups;
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
    return refs.concat(this.rateLimit.returning);
  }

  /** Subscribes this worker to its own slice of the shared job stream. */
  attach(jobs$: Observable<JobRecord>): void {
    // The poller never routes more jobs than `freeSlots`, so a job almost always starts at once; a buffering
    // operator such as mergeMap(concurrency) cost 15 % of end-to-end throughput here.
    this.subscription = jobs$.pipe(filter((job) => job.queue === this.queue)).subscribe((job) => {
      // A claim that was in flight when a RateLimitError paused the queue (or a GroupRateLimitError the job's group):
      // its jobs would start during the pause, each to hit the limit again.
      if (this.rateLimit.holds(job)) return this.rateLimit.refuse(job);
      if (job.group && !this.seenGroups) {
        this.seenGroups = true;
        this.claimableSlots(0);
      }
      if (this.slots.admit(job)) this.start(job);
    });
  }

  /** Stops taking new jobs; running ones go on. */
  stopAccepting(): void {
    this.stopping = true;
    this.slots.stopAccepting();
  }

  /**
   * Removes the jobs that wait for a slot (all, or those of `group`) and returns their attempts, for the caller to hand
   * back unstarted.
   */
  takeUnstarted(group?: string): AttemptRef[] {
    const matches = group === undefined ? undefined : (record: JobRecord) => record.group === group;
    return this.slots
      .takeWaiting(matches)
      .concat(this.dropFollowing(undefined, matches))
      .map((record) => ({ id: record.id, attempt: record.attempts }))
      .concat(this.takeBatchPending(group));
  }

  /**
   * An operator paused the queue in this process: the jobs claimed ahead (and a partial batch not yet called) go back
   * to pending, unspent, instead of starting during the pause. Not at shutdown, which hands them back itself.
   */
  async queuePaused(): Promise<void> {
    if (this.stopping) return;
    await this.rateLimit.handBackForPause();
  }

  /**
   * A batch call of `jobs` begins: each attempt's ref takes the call's size, which the writes of the attempt carry from
   * then on (its outcome, its snooze, its hand-back), so the size costs no statement of its own. A call that outlasts a
   * round of writes must show its size while it runs: the start is noted again, and the writer's next round writes
   * the size of those still running with the starts (`markStarted`); a call that ends within its turn (its outcomes
   * take the starts out) writes nothing more.
   */
  private recordBatch(jobs: Job[]): void {
    for (const job of jobs) {
      const ref = this.running.get(job.id)?.ref;
      // Only this call's attempt: a newer run of the same job (cancelled, then retried) keeps its own ref.
      if (!ref || ref.attempt !== job.attempt) continue;
      ref.batch = jobs.length;
      this.context.outcomes.started(ref, this.context.logger);
    }
  }

  /**
   * The jobs of a partial batch not yet called (all, or those of `group`): at shutdown, or when a RateLimitError paused
   * the queue (or a GroupRateLimitError their group). Their attempts end unsaved, to be handed back unstarted.
   */
  private takeBatchPending(group?: string): AttemptRef[] {
    if (!this.batch) return [];
    // Only the attempt's runner sees the reason: the attempt is abandoned first, so nothing records or logs it.
    const reason = this.stopping
      ? new ShutdownAbortError('Application shutdown: the batch was not called yet')
      : new Error('Rate limited: the batch was not called yet');
    const matches = group === undefined ? undefined : (job: { group: string | null }) => job.group === group;
    const refs: AttemptRef[] = [];
    for (const id of this.batch.takePending(reason, matches)) {
      const attempt = this.running.get(id);
      if (!attempt || attempt.abandoned) continue;
      attempt.abandoned = true;
      refs.push({ id, attempt: attempt.record.attempts });
    }
    return refs;
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
      // Its handler ran: the hand-back's run records its start (and the size of its batch call, if any).
      refs.push(attempt.ref);
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
    this.execute(record).catch((error: unknown) => this.unexpected(record, error));
  }

  private unexpected(record: JobRecord, error: unknown): void {
    this.context.logger.error(`Job ${record.id} (queue ${this.queue}): unexpected error in the worker: ${String(error)}`);
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
    // Its handler gets it now: the claim left the row's start unset (the job may have waited here for a slot).
    const startedAt = Date.now();
    // One object for the attempt's writes: a batch call adds its size to it (recordBatch).
    const ref: AttemptRef = { id: record.id, attempt: record.attempts, startedAt };
    const attempt: RunningAttempt = {
      record,
      controller: new LazyAbortController(),
      abandoned: false,
      writeQueued: false,
      ended: false,
      ref,
    };
    // The same job claimed again while an earlier run is still here: that run was cancelled and retried before
    // our heartbeat noticed, and it may even carry the same attempt number (retry starts a fresh count), so
    // only this flag keeps its late outcome from landing on the new run.
    const stale = this.running.get(record.id);
    if (stale && !stale.abandoned) {
      stale.abandoned = true;
      stale.controller.abort(new JobCancelledError(record.id));
    }
    this.running.set(record.id, attempt);
    this.context.outcomes.started(ref, this.context.logger);
    // Handed to the writer, the attempt ends when the writer answers (`saved`); otherwise here.
    let submitted = false;
    try {
      if (this.context.events.observed)
        this.context.events.emit({ type: 'active', queue: this.queue, jobId: record.id, attempt: record.attempts });
      const began = this.slots.adaptive ? performance.now() : 0;
      const outcome = await this.runner.run(attempt);
      // Ended by a write of its own (snooze, rate limit, `completeIn`) or none (handed back, cancelled): nothing more
      // to write of its start. An outcome the writer saves carries it.
      if (outcome.kind !== 'complete' && outcome.kind !== 'retry' && outcome.kind !== 'fail') this.context.outcomes.forgetStart(ref);
      if (outcome.kind === 'abandoned' || attempt.abandoned) return;
      if (began > 0) this.noteHandlerTime(performance.now() - began);
      // Written and announced by the caller's transaction (job.completeIn): the slot is all that is left.
      if (outcome.kind === 'committed') return;
      if (outcome.kind === 'rateLimited') return await this.rateLimit.pause(record, outcome.until, ref, outcome.group);
      const final = outcome.kind === 'snooze' ? await this.snoozes.write(record, outcome.runAt, outcome.delay, ref) : outcome;
      if (final === null) return;
      // With a prefetch (or 'auto') the slot's next job does not wait for this write at all: not even for the batch
      // ahead of it. The poller hears of the slot now, as the handler returns, not once a batch takes the outcome.
      if (this.slots.handsOff) this.writeQueued(attempt);
      const remove = final.kind === 'complete' && this.removesOnComplete(record);
      const recent = this.context.recentCompletions;
      let landed: ((completed: boolean) => void) | undefined;
      // Remembered before the write: a wait whose first look finds the row already deleted reads it here, once the
      // writer's answer says the completion landed.
      if (remove && final.kind === 'complete' && recent)
        recent.remember(record, final.json, new Promise<boolean>((resolve) => (landed = resolve)));
      // The writer tells `saved` from its round, without a promise per job.
      this.context.outcomes.submit({
        ref,
        queue: this.queue,
        outcome: final,
        logger: this.context.logger,
        signal: this.shutdown.signal,
        onQueued: () => this.writeQueued(attempt),
        remove,
        saved: (saved) => {
          landed?.(saved?.kind === 'complete');
          this.saved(attempt, saved);
        },
      });
      submitted = true;
    } finally {
      if (!submitted) this.end(attempt);
    }
  }

  /**
   * The writer's answer for an attempt submitted to it: announced, then the attempt ends. It runs inside the writer's
   * round, so nothing it throws may reach the writer.
   */
  private saved(attempt: RunningAttempt, saved: SavableOutcome | null): void {
    try {
      try {
        if (saved) announceOutcome(this.context, this.queue, attempt.record, saved);
      } finally {
        this.end(attempt);
      }
    } catch (error) {
      this.unexpected(attempt.record, error);
    }
  }

  /** The attempt is done with: its slot settles, and the job's next attempt, if one waited for this one, starts. */
  private end(attempt: RunningAttempt): void {
    const { record } = attempt;
    // A newer run of the same job (cancelled, then retried) may have taken the entry: leave it alone.
    if (this.running.get(record.id) === attempt) this.running.delete(record.id);
    this.settle(attempt.writeQueued);
    const next = this.following.get(record.id);
    if (next) {
      this.following.delete(record.id);
      this.start(next);
    }
  }

  /** Whether retention keeps nothing of `record` once it completed: its own removeOnComplete, or its queue's retention. */
  private removesOnComplete(record: JobRecord): boolean {
    this.keepsNoCompleted ??= this.context.keepsNoCompleted?.(this.queue) ?? false;
    return this.keepsNoCompleted || ((record.removeOn ?? 0) & REMOVE_ON_COMPLETE) !== 0;
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

  /**
   * Takes the jobs following a previous attempt's save (or the one of job `id`) out, never to start, and frees their
   * slots; returns them.
   */
  private dropFollowing(id?: string, matches: (job: JobRecord) => boolean = () => true): JobRecord[] {
    const candidates = id === undefined ? [...this.following.values()] : [this.following.get(id)].filter((job) => job !== undefined);
    const dropped = candidates.filter(matches);
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
    return this.slots.idle && this.rateLimit.returning.length === 0;
  }

  private notifyIfIdle(): void {
    if (this.idle) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}
