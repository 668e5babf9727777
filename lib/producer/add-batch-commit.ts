import { JobRecord, NewJobRecord } from '../storage/queue-storage.interface';
import { isTransientStorageError } from '../errors/codes/transient-error';

/** The storage call a batch is written with: `QueueStorage.enqueue`. */
export type EnqueueCall = (queue: string, jobs: NewJobRecord[], now: number) => Promise<JobRecord[]>;

/** One `add()` waiting for its row. */
interface WaitingAdd {
  record: NewJobRecord;
  now: number;
  resolve(record: JobRecord): void;
  reject(error: unknown): void;
}

/**
 * Most rows one statement carries: a flood of adds still moves in bounded steps, so the adds at the head of a
 * long line are not held back by the thousands behind them.
 */
const MAX_BATCH = 1_000;

/**
 * Where statements run side by side (a pool), a line at least this long is written as two statements at once, on two
 * connections: each half's callers resolve, and make their next adds, while the other half is still being written,
 * and the database writes both halves in parallel. Under 1,000 concurrent adds on PostgreSQL: 1.31× the adds/s.
 * Where the database has one writer (SQLite) the halves would only queue one
 * behind the other: it measured no gain there (1.015×), and a line stays one statement, its ids in call order.
 */
const SPLIT_AT = 64;

/**
 * Batch commit of concurrent single `add()` calls, per queue. An add to a queue with no insert in flight is
 * written at once, alone: a lone add waits for nothing (no timer, no window). Adds that arrive while a queue's
 * insert is in flight line up and are written together, in one statement, as soon as it returns. Under load
 * (HTTP handlers each awaiting their own add) that turns one statement per add into one per round trip.
 *
 * Each add keeps its own outcome: its own row or, for a key a live job holds, that job (the statement inserts in
 * input order and skips taken keys, so two adds of one key in one batch get the first one's job, as they would
 * one after the other); rows get ids in call order. A batch fails as a whole only when the statement failed as a
 * whole for a reason a retry may get past (busy, lost connection: the same error a lone add would have met, and
 * whether it committed may be unknown). Any other failure of a batch is written again one add at a time, so only
 * the add that caused it gets the error.
 */
export class AddBatchCommit {
  /** Per queue with an insert in flight: how many, and the adds lined up behind them. */
  private readonly queues = new Map<string, { inFlight: number; line: WaitingAdd[] }>();

  /**
   * @param maxInFlight inserts of one queue in flight at once: 1 where the database has one writer (SQLite), so
   *   ids follow call order; more where statements run side by side on a pool (PostgreSQL), where concurrent adds
   *   never had an id order (each took its own pooled connection) and the commits' disk flushes overlap.
   */
  constructor(
    private readonly enqueue: EnqueueCall,
    private readonly maxInFlight = 1,
  ) {}

  /** Writes one prepared job of `queue`; `now` is the time the caller prepared it at. */
  add(queue: string, record: NewJobRecord, now: number): Promise<JobRecord> {
    return new Promise<JobRecord>((resolve, reject) => {
      const waiting: WaitingAdd = { record, now, resolve, reject };
      let state = this.queues.get(queue);
      if (!state) {
        state = { inFlight: 0, line: [] };
        this.queues.set(queue, state);
      }
      if (state.inFlight >= this.maxInFlight) {
        state.line.push(waiting);
        return;
      }
      void this.drain(queue, state, [waiting]);
    });
  }

  /** Writes `batch`, then each batch that lined up meanwhile, until the line is empty. */
  private async drain(queue: string, state: { inFlight: number; line: WaitingAdd[] }, batch: WaitingAdd[]): Promise<void> {
    state.inFlight++;
    for (let next = batch; next.length > 0; next = state.line.splice(0, MAX_BATCH)) await this.writeInTwo(queue, next);
    if (--state.inFlight === 0) this.queues.delete(queue);
  }

  /** A long batch as two statements at once where statements run side by side (see SPLIT_AT); else as one. */
  private writeInTwo(queue: string, batch: WaitingAdd[]): Promise<unknown> {
    if (this.maxInFlight < 2 || batch.length < SPLIT_AT) return this.write(queue, batch);
    const half = Math.ceil(batch.length / 2);
    return Promise.all([this.write(queue, batch.slice(0, half)), this.write(queue, batch.slice(half))]);
  }

  /** One statement for the batch; never rejects (every outcome goes to its own caller). */
  private async write(queue: string, batch: WaitingAdd[]): Promise<void> {
    // The latest caller's time: created_at is not before any add of the batch, and every job due at its add is
    // due at this time too (PostgreSQL's enqueue notifies for rows due by `now`).
    const now = batch.reduce((latest, waiting) => Math.max(latest, waiting.now), 0);
    try {
      const stored = await this.enqueue(
        queue,
        batch.map((waiting) => waiting.record),
        now,
      );
      batch.forEach((waiting, index) => waiting.resolve(stored[index]));
      return;
    } catch (error) {
      if (batch.length === 1 || isTransientStorageError(error)) {
        batch.forEach((waiting) => waiting.reject(error));
        return;
      }
    }
    // The statement failed and wrote nothing: find whose add it was, in call order.
    for (const waiting of batch) {
      try {
        const [stored] = await this.enqueue(queue, [waiting.record], waiting.now);
        waiting.resolve(stored);
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}
