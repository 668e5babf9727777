import { Logger } from '@nestjs/common';
import { setTimeout as sleep } from 'node:timers/promises';
import { OutcomeWriteError } from '../errors/outcome-write.error';
import { AttemptRef, ClaimStorage, Completion } from '../storage/queue-storage.interface';
import { serializeJobError, toJobError } from '../utils/error.util';
import { isTransientStorageError } from '../errors/codes/transient-error';
import { SavableOutcome } from './outcome';

/** One attempt's outcome to save. */
export interface OutcomeSave {
  /** The attempt: every write is fenced by it and by this process's worker id. */
  ref: AttemptRef;
  queue: string;
  outcome: SavableOutcome;
  /** The queue's logger: where write trouble is reported. */
  logger: Logger;
  /** Aborted at forced shutdown: a write failing then is not retried. */
  signal: AbortSignal;
  /** Runs when a write of this outcome has been handed to the storage (before it lands); may run once per try. */
  onQueued(): void;
  /** A completion whose retention keeps nothing: its row may be deleted instead (see `Completion.remove`). */
  remove?: boolean;
}

/** A save whose end is told by a call rather than a promise (see `OutcomeWriter.submit`). */
export interface OutcomeSaveSink extends OutcomeSave {
  /**
   * The outcome that took effect, or null when none did (see `OutcomeWriter.save`). Runs inside the writer's round, so
   * it must not throw.
   */
  saved(outcome: SavableOutcome | null): void;
}

/** An outcome write `OutcomeWriter.retrying` runs on its own: what its log lines name, and when it stops trying. */
export interface UnbatchedWrite {
  ref: AttemptRef;
  queue: string;
  /** What is written, for the log: `snooze`, `rateLimit`... */
  kind: string;
  logger: Logger;
  /** Aborted at forced shutdown: a write failing then is not retried. */
  signal: AbortSignal;
}

/** Clock and pause of the writer; tests pass their own. */
export interface OutcomeWriterTiming {
  now(): number;
  /** Waits `ms`, rejecting when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<unknown>;
}

/** One outcome in the writer's queue: settled once, with whether the attempt was still ours or with the error. */
interface PendingWrite {
  readonly ref: AttemptRef;
  readonly outcome: SavableOutcome;
  readonly remove?: boolean;
  onQueued(): void;
  resolve(owned: boolean): void;
  reject(error: unknown): void;
}

/** An attempt whose handler started and whose outcome is not queued yet: its start is written by the next flush. */
interface PendingStart {
  ref: AttemptRef;
  logger: Logger;
  /**
   * Noted before a turn of the event loop that the writer waited through: a handler that ends within the turn it
   * started in (a no-op) has queued its outcome by then, which took this entry out. Only aged starts are written.
   */
  aged: boolean;
}

/** Longest pause between tries of a write the database could not take for now. */
export const MAX_SAVE_RETRY_DELAY_MS = 1000;

const REAL_TIMING: OutcomeWriterTiming = { now: Date.now, sleep: (ms, signal) => sleep(ms, undefined, { signal }) };

/**
 * Saves the outcomes of all workers of the process. Writes of the same turn of the event loop go out together:
 * completions in one statement (up to `maxBatch`), retries and failures beside them, all queued before the first
 * is awaited; those that arrive while a batch is in flight form the next one. No timer, so an idle queue sees no
 * added latency. A handler's start (`started`) rides the same rounds: an attempt whose outcome is queued in the same
 * round carries its start in its outcome's statement, at no statement more; the starts of attempts still running go
 * out in one statement per round (`ClaimStorage.markStarted`), never one per job. Every write is fenced by (locked_by, attempts): an attempt that is no longer ours writes nothing.
 * Errors a retry can get past are retried with a bounded backoff; any other is escalated once (OutcomeWriteError).
 */
export class OutcomeWriter {
  private pending: PendingWrite[] = [];
  /** Starts to record, by job id; an outcome queued for the same attempt takes its entry out (it carries the start). */
  private starts = new Map<string, PendingStart>();
  private flushing?: Promise<void>;

  constructor(
    private readonly storage: ClaimStorage,
    private readonly workerId: string,
    private readonly maxBatch: number,
    private readonly timing: OutcomeWriterTiming = REAL_TIMING,
  ) {}

  /**
   * Writes the outcome and returns the one that took effect, or null when none did (the attempt was no longer ours,
   * shutdown came, or the database refused even a plain failure). Errors a retry can get past (busy, locked,
   * connection lost) are retried with a bounded backoff: a lost write would strand the job. Any other error fails
   * the same way every time, so it is logged once and the attempt is failed with it instead; if the database
   * refuses that too, the caller frees the slot and the lease expires, so the job is recovered like a crashed one.
   */
  save(request: OutcomeSave): Promise<SavableOutcome | null> {
    return new Promise((saved) => this.submit({ ...request, saved }));
  }

  /**
   * `save`, told by a call: the worker's way, so that an outcome costs no promise or async function of its own on its
   * way to the database and back, however many a claim batch holds.
   */
  submit(request: OutcomeSaveSink): void {
    this.enqueue(new OutcomeSaving(request, this.requeue, this.timing));
  }

  /** A retried save goes back to the queue as it first went (see `enqueue`). */
  private readonly requeue = (entry: PendingWrite): void => this.enqueue(entry);

  /**
   * Runs an outcome write that is not batched (a snooze, a RateLimitError pause) with the same retry rule as `save`:
   * errors a retry can get past (busy, locked, connection lost) are retried with the same bounded backoff, since a
   * lost write would leave the job running until its lease expires, and recovery would then spend its attempt.
   * Rejects with any other error (the caller reports it), or with the last error once `signal` aborts (shutdown).
   */
  async retrying<T>(request: UnbatchedWrite, write: () => Promise<T>): Promise<T> {
    const { logger, ref, queue, kind, signal } = request;
    for (let failures = 0; ; failures++) {
      try {
        return await write();
      } catch (error) {
        if (!isTransientStorageError(error) || signal.aborted) throw error;
        logger.error(`${whereOf(ref, queue)}: saving outcome ${kind} failed, retrying: ${String(error)}`);
        try {
          await this.timing.sleep(Math.min(25 * 2 ** failures, MAX_SAVE_RETRY_DELAY_MS), signal);
        } catch {
          throw error;
        }
      }
    }
  }

  /**
   * A handler was given the attempt `ref` at `ref.startedAt`: written with the next round of writes, unless its outcome
   * (which carries the start) is queued first, or `forgetStart` says nothing is to be written for it. Noted again when
   * the attempt joins a batch call (`ref.batch` set): that round writes the size, even where the start is written.
   */
  started(ref: AttemptRef, logger: Logger): void {
    this.starts.set(ref.id, { ref, logger, aged: false });
    this.flushing ??= this.flush();
  }

  /**
   * The attempt `ref` (the object given to `started`) ended by a write of its own (snooze, rate limit, `completeIn`) or
   * none (handed back, cancelled): its start is not written here. A newer run of the same job keeps its entry.
   */
  forgetStart(ref: AttemptRef): void {
    if (this.starts.get(ref.id)?.ref === ref) this.starts.delete(ref.id);
  }

  /**
   * One write of one outcome, joined to the current batch. Resolves whether the attempt was still ours; rejects
   * with the database's error. `onQueued` runs when its statement has been handed to the storage.
   */
  write(ref: AttemptRef, outcome: SavableOutcome, onQueued: () => void, remove?: boolean): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => this.enqueue({ ref, outcome, remove, onQueued, resolve, reject }));
  }

  /** Joins `entry` to the current batch. */
  private enqueue(entry: PendingWrite): void {
    // The outcome's statement records the start: no statement of its own (a start of a newer attempt stays).
    const { ref } = entry;
    if (this.starts.get(ref.id)?.ref.attempt === ref.attempt) this.starts.delete(ref.id);
    this.pending.push(entry);
    this.flushing ??= this.flush();
  }

  private async flush(): Promise<void> {
    // Let outcomes of the same turn of the event loop join the first batch.
    await nextTurn();
    this.ageStarts();
    while (this.pending.length > 0 || this.starts.size > 0) {
      const starts = this.takeAgedStarts();
      if (this.pending.length === 0 && starts.length === 0) {
        // Only starts noted in this turn: one more turn, for the outcomes of handlers that end in it to take them out.
        await nextTurn();
        this.ageStarts();
        continue;
      }
      const batch = this.pending.splice(0, this.maxBatch);
      const completions: PendingWrite[] = [];
      const written: Promise<void>[] = [];
      if (starts.length > 0) written.push(this.writeStarts(starts));
      for (const entry of batch) {
        if (entry.outcome.kind === 'complete') completions.push(entry);
        else written.push(this.writeSingle(entry, entry.outcome));
      }
      if (completions.length > 0) written.push(this.writeCompletions(completions));
      // The writes land in a later turn: a start still here then was noted before it.
      this.ageStarts();
      await Promise.all(written);
    }
    this.flushing = undefined;
  }

  private ageStarts(): void {
    for (const start of this.starts.values()) start.aged = true;
  }

  private takeAgedStarts(): PendingStart[] {
    const aged = [...this.starts.values()].filter((start) => start.aged);
    for (const start of aged) this.starts.delete(start.ref.id);
    return aged;
  }

  /**
   * The starts of attempts still running, in one fenced statement. Not retried: a start that is lost is written by the
   * attempt's outcome all the same, and meanwhile the job only looks claimed ahead.
   */
  private async writeStarts(starts: PendingStart[]): Promise<void> {
    try {
      await this.storage.markStarted(
        starts.map((start) => start.ref),
        this.workerId,
      );
    } catch (error) {
      starts[0].logger.warn(`Recording the start of ${starts.length} job(s) failed; their outcomes will record it: ${String(error)}`);
    }
  }

  /** A retry or a failure: one fenced statement (they are rare: only failing handlers produce them). */
  private async writeSingle(entry: PendingWrite, outcome: Exclude<SavableOutcome, { kind: 'complete' }>): Promise<void> {
    const { ref } = entry;
    const now = this.timing.now();
    let owned: boolean;
    try {
      // Both storages queue their statement before their first await, so `onQueued` follows the queueing.
      const error = serializeJobError(outcome.error);
      const write =
        outcome.kind === 'retry'
          ? this.storage.retry(ref, this.workerId, error, outcome.runAt, now)
          : this.storage.fail(ref, this.workerId, error, now);
      entry.onQueued();
      owned = await write;
    } catch (error) {
      return entry.reject(error);
    }
    // Settled outside the try: whatever follows the settling is not the database's error.
    entry.resolve(owned);
  }

  private async writeCompletions(batch: PendingWrite[]): Promise<void> {
    let owned: Set<string>;
    try {
      const written = this.storage.completeMany(batch.map(toCompletion), this.workerId, this.timing.now());
      for (const entry of batch) entry.onQueued();
      owned = await written;
    } catch (error) {
      // One completion the database refuses (a result too large...) fails its whole statement: write the batch
      // one by one, so only that one fails. A busy or lost database fails them all alike: each caller retries.
      if (batch.length > 1 && !isTransientStorageError(error)) await this.writeOneByOne(batch);
      else for (const entry of batch) entry.reject(error);
      return;
    }
    for (const entry of batch) entry.resolve(owned.has(entry.ref.id));
  }

  private async writeOneByOne(batch: PendingWrite[]): Promise<void> {
    for (const entry of batch) {
      let owned: Set<string>;
      try {
        owned = await this.storage.completeMany([toCompletion(entry)], this.workerId, this.timing.now());
      } catch (error) {
        entry.reject(error);
        continue;
      }
      entry.resolve(owned.has(entry.ref.id));
    }
  }
}

/**
 * One outcome being saved with `save`'s rule, as the entry the writer's round settles: a write that lands tells the
 * request's `saved`; an error a retry can get past queues it again after a bounded, doubling pause; any other fails
 * the attempt instead, once (see `OutcomeWriter.save`).
 */
class OutcomeSaving implements PendingWrite {
  outcome: SavableOutcome;
  /** Tries that failed on an error a retry can get past, since the last outcome change: the next pause doubles. */
  private failures = 0;

  constructor(
    private readonly request: OutcomeSaveSink,
    private readonly requeue: (entry: PendingWrite) => void,
    private readonly timing: OutcomeWriterTiming,
  ) {
    this.outcome = request.outcome;
  }

  get ref(): AttemptRef {
    return this.request.ref;
  }

  get remove(): boolean | undefined {
    return this.request.remove;
  }

  onQueued(): void {
    this.request.onQueued();
  }

  resolve(owned: boolean): void {
    if (!owned) {
      const { logger, ref, queue } = this.request;
      logger.warn(
        `${whereOf(ref, queue)}: no longer owned when its outcome (${this.outcome.kind}) was saved (cancelled, or its lease expired ` +
          `and another worker took it); outcome discarded`,
      );
    }
    this.request.saved(owned ? this.outcome : null);
  }

  reject(error: unknown): void {
    const { logger, ref, queue, signal } = this.request;
    const current = this.outcome;
    if (!isTransientStorageError(error)) {
      if (current.kind === 'fail' && current.writeFailed) {
        logger.error(
          `${whereOf(ref, queue)}: recording that its outcome could not be saved failed too (${String(error)}); giving up: its lease ` +
            `will expire and recovery will requeue or fail it`,
        );
        return this.request.saved(null);
      }
      const refused = new OutcomeWriteError(ref.id, queue, current.kind, error);
      logger.error(
        `${whereOf(ref, queue)}: the database refused its outcome (${current.kind}); failing the attempt instead: ${refused.message}`,
      );
      this.outcome = { kind: 'fail', error: toJobError(refused, ref.attempt), writeFailed: true };
      this.failures = 0;
      return this.requeue(this);
    }
    logger.error(`${whereOf(ref, queue)}: saving outcome ${current.kind} failed, retrying: ${String(error)}`);
    if (signal.aborted) return this.request.saved(null);
    const pause = Math.min(25 * 2 ** this.failures++, MAX_SAVE_RETRY_DELAY_MS);
    this.timing.sleep(pause, signal).then(
      () => this.requeue(this),
      () => this.request.saved(null),
    );
  }
}

/** Resolves in the next turn of the event loop, after its I/O callbacks. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** Where a log line of write trouble points: built when one is written, not once per job. */
function whereOf(ref: AttemptRef, queue: string): string {
  return `Job ${ref.id} (queue ${queue}) attempt ${ref.attempt}`;
}

function toCompletion(entry: PendingWrite): Completion {
  return { ref: entry.ref, result: entry.outcome.kind === 'complete' ? entry.outcome.json : null, remove: entry.remove };
}
