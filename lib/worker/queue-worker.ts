import { Logger } from '@nestjs/common';
import { Observable, Subscription, filter } from 'rxjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { InvalidJobResultError } from '../errors/invalid-job-result.error';
import { JobCancelledError } from '../errors/job-cancelled.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { JobTimeoutError } from '../errors/job-timeout.error';
import { OutcomeWriteError } from '../errors/outcome-write.error';
import { UnrecoverableError } from '../errors/unrecoverable.error';
import { JobEventBus } from '../events/job-event-bus';
import { BackoffOptions } from '../interfaces/backoff-options.interface';
import { FinishedJobStatus, JobError, JobProgress } from '../interfaces/job-info.interface';
import { Job } from '../interfaces/job.interface';
import { ProcessorOptions } from '../interfaces/processor-options.interface';
import { QueueProcessor } from '../interfaces/queue-processor.interface';
import { AttemptRef, JobRecord, QueueStorage } from '../storage/queue-storage.interface';
import { backoffDelay, backoffProblem } from '../utils/backoff.util';
import { serializeJobError, toJobError } from '../utils/error.util';
import { findJsonProblem } from '../utils/json-value.util';
import { serializeProgress } from '../utils/serialize-progress.util';
import { isTransientStorageError } from '../utils/transient-error.util';
import { CompletionBatcher } from './completion-batcher';
import { toJob } from './job-runtime';
import { LazyAbortController } from './lazy-abort-controller';

/** What a worker needs from the process around it. */
export interface QueueWorkerContext {
  storage: QueueStorage;
  /** Shared by the process's workers: completions are written in batches. */
  completions: CompletionBatcher;
  workerId: string;
  defaultBackoff: BackoffOptions;
  events: JobEventBus;
  logger: Logger;
  /** A slot freed up: the poller may claim again. */
  onSlotFreed(): void;
  /** A retry was written to fall due at `runAt`. */
  onRetryScheduled(runAt: number): void;
  /** A job of this queue reached a finished status: retention may have work. */
  onFinished(queue: string, status: FinishedJobStatus): void;
}

/** The settings of one queue's processor, validated. */
export interface WorkerSettings extends ProcessorOptions {
  concurrency: number;
}

type Outcome =
  | { kind: 'complete'; json: string | null }
  | { kind: 'retry'; error: JobError; runAt: number }
  | { kind: 'fail'; error: JobError; writeFailed?: true }
  // Handed back at shutdown or cancelled while it ran: nothing to save, log or announce.
  | { kind: 'abandoned' };

const ABANDONED: Outcome = { kind: 'abandoned' };

/** An outcome that has something to write. */
type SavableOutcome = Exclude<Outcome, { kind: 'abandoned' }>;

interface RunningAttempt {
  record: JobRecord;
  controller: LazyAbortController;
  /** Its outcome must not be saved: handed back at shutdown, or cancelled by an operator. Per run, not per job id:
   * a cancelled job retried at once can run again here while its first handler, ignoring its signal, still runs. */
  abandoned: boolean;
  /** Its outcome's write is on its way to the database: the poller may claim into its slot already. */
  writeQueued: boolean;
}

const MAX_SAVE_RETRY_DELAY_MS = 1000;

/**
 * Runs one queue's jobs with its processor, at most `concurrency` at a time, and records each outcome.
 * It never claims: the shared poller asks it for free slots and routes claimed jobs to it.
 */
export class QueueWorker {
  private readonly running = new Map<string, RunningAttempt>();
  private readonly shutdown = new AbortController();
  /** Jobs started and not settled: running, or their outcome being saved. Never more than `concurrency`. */
  private started = 0;
  /** Of those, the ones whose outcome's write is queued: their slots are free as soon as it lands. */
  private writing = 0;
  /** Jobs routed here that wait for a slot (see `freeSlots`); handed back unstarted at shutdown. */
  private readonly waiting: JobRecord[] = [];
  private accepting = true;
  private subscription?: Subscription;
  private idleWaiters: (() => void)[] = [];

  constructor(
    readonly queue: string,
    readonly processorName: string,
    private readonly processor: QueueProcessor,
    readonly settings: WorkerSettings,
    private readonly context: QueueWorkerContext,
  ) {}

  /**
   * Slots the poller may claim for now: free ones, and those whose job's outcome is already queued for writing.
   * The claim queues behind that write on the same connection, so by the time its jobs arrive the write has
   * landed and the slot is free: SQLite's thread goes from one statement to the next without waiting for this
   * thread, and a job still starts only after the previous outcome in its slot is saved. Where statements do
   * not run in order (a connection pool), a job that arrives first waits in `waiting` for its slot.
   */
  get freeSlots(): number {
    return this.accepting ? Math.max(0, this.settings.concurrency - this.started + this.writing - this.waiting.length) : 0;
  }

  /** The attempts this worker holds: running, being saved, or waiting for a slot. */
  heldAttempts(): AttemptRef[] {
    const held = [...this.running.values()].map(({ record }) => record).concat(this.waiting);
    return held.map((record) => ({ id: record.id, attempt: record.attempts }));
  }

  /** Subscribes this worker to its own slice of the shared job stream. */
  attach(jobs$: Observable<JobRecord>): void {
    // The poller never routes more jobs than `freeSlots`, so a job almost always starts at once; a buffering
    // operator such as mergeMap(concurrency) cost 15 % of end-to-end throughput here.
    this.subscription = jobs$.pipe(filter((job) => job.queue === this.queue)).subscribe((job) => {
      if (this.accepting && this.started < this.settings.concurrency) this.start(job);
      else this.waiting.push(job);
    });
  }

  /** Stops taking new jobs; running ones go on. */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Removes the jobs that wait for a slot and returns their attempts, for the caller to hand back unstarted. */
  takeUnstarted(): AttemptRef[] {
    return this.waiting.splice(0).map((record) => ({ id: record.id, attempt: record.attempts }));
  }

  /** Resolves once nothing is running or being saved. */
  whenIdle(): Promise<void> {
    if (this.started === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Aborts every running job (`reason` becomes its signal's reason) and returns their attempts for the caller
   * to hand back; whatever those handlers do afterwards is not saved.
   */
  abortRunning(reason: Error): AttemptRef[] {
    this.shutdown.abort(reason);
    const refs: AttemptRef[] = [];
    for (const attempt of this.running.values()) {
      attempt.abandoned = true;
      attempt.controller.abort(reason);
      refs.push({ id: attempt.record.id, attempt: attempt.record.attempts });
    }
    return refs;
  }

  /** An operator cancelled this job: abort its signal and keep its outcome out of the database. */
  cancelRunning(id: string): boolean {
    const queued = this.waiting.findIndex((record) => record.id === id);
    if (queued >= 0) {
      // Not started: it simply never runs (the database already says cancelled).
      const [record] = this.waiting.splice(queued, 1);
      this.context.events.emit({ type: 'cancelled', queue: this.queue, jobId: id, attempt: record.attempts });
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

  private start(record: JobRecord): void {
    this.started++;
    // A rejection here would otherwise surface as an unhandled rejection: whatever one job does, log it and
    // keep the queue going.
    this.execute(record).catch((error: unknown) =>
      this.context.logger.error(`Job ${record.id} (queue ${this.queue}): unexpected error in the worker: ${String(error)}`),
    );
  }

  private async execute(record: JobRecord): Promise<void> {
    const controller = new LazyAbortController();
    const attempt: RunningAttempt = { record, controller, abandoned: false, writeQueued: false };
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
      if (this.context.events.observed) this.context.events.emit({ type: 'active', queue: this.queue, jobId: record.id, attempt: record.attempts });
      const outcome = await this.run(attempt);
      if (outcome.kind === 'abandoned' || attempt.abandoned) return;
      const saved = await this.save(attempt, outcome);
      if (saved) this.announce(record, saved);
    } finally {
      // A newer run of the same job (cancelled, then retried) may have taken the entry: leave it alone.
      if (this.running.get(record.id) === attempt) this.running.delete(record.id);
      this.settle(attempt);
    }
  }

  /** The attempt's outcome is queued for writing: offer its slot to the poller (see `freeSlots`). */
  private writeQueued(attempt: RunningAttempt): void {
    if (attempt.writeQueued) return;
    attempt.writeQueued = true;
    this.writing++;
    this.context.onSlotFreed();
  }

  private async run(attempt: RunningAttempt): Promise<Outcome> {
    const { record, controller } = attempt;
    let job: Job;
    try {
      job = toJob(record, controller, (progress) => this.updateProgress(record, progress));
    } catch (error) {
      this.context.logger.error(`Job ${record.id} (queue ${this.queue}): stored data is not valid JSON; failing it`);
      const cause = error instanceof Error ? error.message : String(error);
      return { kind: 'fail', error: { name: 'InvalidStoredDataError', message: `Stored job data is not valid JSON: ${cause}`, attempt: record.attempts } };
    }
    const timeout = record.timeout ?? this.settings.timeout;
    try {
      // Without a timeout the handler is called directly: one promise and one turn fewer per job.
      const result = timeout === undefined ? await this.processor.process(job) : await withTimeout(() => this.processor.process(job), timeout, controller, record.id);
      return attempt.abandoned ? ABANDONED : this.completeOutcome(record, result);
    } catch (thrown) {
      // A handler that honours its signal rejects with the abort reason: its attempt is handed back or cancelled,
      // not failed, so it must not be logged as "failed, retrying".
      return attempt.abandoned ? ABANDONED : this.failureOutcome(record, thrown);
    }
  }

  private async updateProgress(record: JobRecord, progress: JobProgress): Promise<void> {
    const json = serializeProgress(this.queue, record.id, progress);
    const attempt = this.running.get(record.id);
    if (!attempt || attempt.record !== record || attempt.abandoned) {
      throw new JobNotRunningError(record.id, this.queue);
    }
    const owned = await this.context.storage.updateProgress({ id: record.id, attempt: record.attempts }, this.context.workerId, json, Date.now());
    if (!owned) throw new JobNotRunningError(record.id, this.queue);
    this.context.events.emit({ type: 'progress', queue: this.queue, jobId: record.id, attempt: record.attempts, progress: JSON.parse(json) as JobProgress });
  }

  private failureOutcome(record: JobRecord, thrown: unknown): Outcome {
    const error = toJobError(thrown, record.attempts);
    const where = `Job ${record.id} (queue ${this.queue}) attempt ${record.attempts}/${record.maxAttempts}`;
    if (isUnrecoverable(thrown) || record.attempts >= record.maxAttempts) {
      this.context.logger.error(`${where} failed for good: ${error.name}: ${error.message}`, error.stack);
      return { kind: 'fail', error };
    }
    const delay = backoffDelay(this.backoffOf(record), record.attempts);
    this.context.logger.warn(`${where} failed, retrying in ${delay} ms: ${error.name}: ${error.message}`);
    return { kind: 'retry', error, runAt: Date.now() + delay };
  }

  /**
   * The job's own backoff, else its processor's, else the module's. A stored backoff that cannot be read (a row
   * written by another tool) falls back to the queue's with a warning instead of throwing out of the worker.
   */
  private backoffOf(record: JobRecord): BackoffOptions {
    const fallback = this.settings.backoff ?? this.context.defaultBackoff;
    if (record.backoff === null) return fallback;
    try {
      const stored: unknown = JSON.parse(record.backoff);
      if (backoffProblem(stored) === null) return stored as BackoffOptions;
    } catch {
      // reported below
    }
    this.context.logger.warn(`Job ${record.id} (queue ${this.queue}): stored backoff ${JSON.stringify(record.backoff)} is invalid; using the queue's`);
    return fallback;
  }

  /**
   * Output is as strict as input: a result that would not come back unchanged from JSON fails the job with
   * `InvalidJobResultError` rather than being stored as something else. `undefined` (no result) is stored as null.
   */
  private completeOutcome(record: JobRecord, result: unknown): Outcome {
    if (result === undefined || result === null) return { kind: 'complete', json: null };
    const problem = findJsonProblem(result, 'result');
    if (problem) return this.failureOutcome(record, new InvalidJobResultError(record.id, this.queue, problem.path, problem.reason));
    return { kind: 'complete', json: JSON.stringify(result) };
  }

  /**
   * Writes the outcome and returns the one that took effect, or null when none did (the attempt was no longer ours,
   * shutdown came, or the database refused even a plain failure). Errors a retry can get past (busy, locked,
   * connection lost) are retried with a bounded backoff: a lost write would strand the job. Any other error fails
   * the same way every time, so it is logged once and the attempt is failed with it instead; if the database
   * refuses that too, the slot is freed and the lease left to expire, so the job is recovered like a crashed one.
   */
  private async save(attempt: RunningAttempt, outcome: SavableOutcome): Promise<SavableOutcome | null> {
    const { logger } = this.context;
    const { record } = attempt;
    const where = `Job ${record.id} (queue ${this.queue}) attempt ${record.attempts}`;
    let current = outcome;
    for (let failures = 0; ; failures++) {
      try {
        const owned = await this.write(attempt, current);
        if (!owned) {
          logger.warn(
            `${where}: no longer owned when its outcome (${current.kind}) was saved (cancelled, or its lease expired ` +
              `and another worker took it); outcome discarded`,
          );
        }
        return owned ? current : null;
      } catch (error) {
        if (!isTransientStorageError(error)) {
          if (current.kind === 'fail' && current.writeFailed) {
            logger.error(
              `${where}: recording that its outcome could not be saved failed too (${String(error)}); giving up: its lease ` +
                `will expire and recovery will requeue or fail it`,
            );
            return null;
          }
          const refused = new OutcomeWriteError(record.id, this.queue, current.kind, error);
          logger.error(`${where}: the database refused its outcome (${current.kind}); failing the attempt instead: ${refused.message}`);
          current = { kind: 'fail', error: toJobError(refused, record.attempts), writeFailed: true };
          failures = -1;
          continue;
        }
        logger.error(`${where}: saving outcome ${current.kind} failed, retrying: ${String(error)}`);
        if (this.shutdown.signal.aborted) return null;
        try {
          await sleep(Math.min(25 * 2 ** failures, MAX_SAVE_RETRY_DELAY_MS), undefined, { signal: this.shutdown.signal });
        } catch {
          return null;
        }
      }
    }
  }

  /** One write of an outcome; resolves whether the attempt was still ours. */
  private write(attempt: RunningAttempt, outcome: SavableOutcome): Promise<boolean> {
    const { storage, workerId } = this.context;
    const ref = { id: attempt.record.id, attempt: attempt.record.attempts };
    if (outcome.kind === 'complete') return this.context.completions.complete(ref, outcome.json, () => this.writeQueued(attempt));
    const now = Date.now();
    const write =
      outcome.kind === 'retry'
        ? storage.retry(ref, workerId, serializeJobError(outcome.error), outcome.runAt, now)
        : storage.fail(ref, workerId, serializeJobError(outcome.error), now);
    // The storage queues its statement before its first await.
    this.writeQueued(attempt);
    return write;
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
        return;
    }
  }

  private settle(attempt: RunningAttempt): void {
    this.started--;
    if (attempt.writeQueued) this.writing--;
    // No write was queued (cancelled, handed back): the slot is news to the poller.
    else this.context.onSlotFreed();
    const next = this.accepting ? this.waiting.shift() : undefined;
    if (next) this.start(next);
    if (this.started === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }
}

/** Whether a thrown value asks to fail for good; `instanceof` itself throws on a Proxy whose traps throw. */
function isUnrecoverable(thrown: unknown): boolean {
  try {
    return thrown instanceof UnrecoverableError || thrown instanceof InvalidJobResultError;
  } catch {
    return false;
  }
}

/** Runs `work`, failing with `JobTimeoutError` (and aborting the job's signal) once `timeout` ms pass. */
function withTimeout<T>(work: () => Promise<T>, timeout: number, controller: LazyAbortController, jobId: string): Promise<T> {
  const started = Promise.resolve().then(work);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      const error = new JobTimeoutError(jobId, timeout);
      controller.abort(error);
      reject(error);
    }, timeout);
    started.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
