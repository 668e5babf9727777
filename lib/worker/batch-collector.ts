import { InvalidBatchResultError } from '../errors/invalid-batch-result.error';
import { BatchOptions } from '../interfaces/batch-options.interface';
import { Job } from '../interfaces/job.interface';
import { BatchProcessor, QueueProcessor } from '../interfaces/queue-processor.interface';
import { signalSourceOf } from './job-runtime';
import { AbortHook, LazyAbortController } from './lazy-abort-controller';

/** Most items of an array refused for its length whose promises are still heard (the largest batch's size). */
const MAX_HEARD_ITEMS = 10_000;

/**
 * One job waiting in, or running as part of, a batch: its own promise, settled once. It is its own abort hook: the
 * attempt's controller tells it of a timeout, cancel or shutdown without an AbortSignal (nor a closure) per job.
 */
class BatchEntry implements AbortHook {
  settled = false;

  constructor(
    private readonly collector: BatchCollector,
    readonly job: Job,
    /** The attempt's controller, hooked; undefined for a `Job` built elsewhere (then its signal is listened to). */
    readonly controller: LazyAbortController | undefined,
    readonly resolve: (value: unknown) => void,
    readonly reject: (error: unknown) => void,
  ) {}

  aborted(reason: unknown): void {
    this.collector.dropAborted(this, reason);
  }

  /** The signal's listener, only for a job whose controller cannot be hooked. */
  listener?: () => void;
}

/**
 * Stands for a batch processor where the worker calls `process(job)` once per job: every job keeps its own attempt
 * (lease, timeout, signal, progress, log, events, span, outcome), and this gathers them into calls of the user's
 * `process(jobs)`. A batch is called once it holds `size` jobs, or `maxWaitMs` after the first job of a partial one;
 * each job's promise then settles from its own item. A job whose signal aborts (its timeout, a cancel, a shutdown)
 * settles alone at once: out of the batch if it has not been called yet, its item ignored if it has.
 */
export class BatchCollector implements QueueProcessor {
  private pending: BatchEntry[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly maxWaitMs: number;

  /**
   * @param onCall told of every call's jobs just before the call: the worker records the batch in their run history.
   */
  constructor(
    private readonly queue: string,
    private readonly target: BatchProcessor,
    private readonly options: BatchOptions,
    private readonly onCall?: (jobs: Job[]) => void,
  ) {
    this.maxWaitMs = options.maxWaitMs ?? 0;
  }

  /** Adds a job to the partial batch; resolves or rejects as its own item of the batch's call says. */
  process(job: Job): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const source = signalSourceOf(job);
      const controller = source instanceof LazyAbortController ? source : undefined;
      if (controller ? controller.aborted : job.signal.aborted) return reject(job.signal.reason);
      const entry = new BatchEntry(this, job, controller, resolve, reject);
      if (controller) controller.onAbort(entry);
      else {
        entry.listener = () => entry.aborted(job.signal.reason);
        job.signal.addEventListener('abort', entry.listener, { once: true });
      }
      this.pending.push(entry);
      if (this.pending.length >= this.options.size) this.flush();
      else if (this.timer === undefined) this.timer = setTimeout(() => this.flush(), this.maxWaitMs);
    });
  }

  /** A job's attempt aborted (its timeout, a cancel, a shutdown): out of the partial batch, settled alone at once. */
  dropAborted(entry: BatchEntry, reason: unknown): void {
    const index = this.pending.indexOf(entry);
    if (index >= 0) {
      this.pending.splice(index, 1);
      if (this.pending.length === 0) this.stopTimer();
    }
    settle(entry, false, reason);
  }

  /**
   * Takes the jobs of the partial batch out (all, or those `matches` picks), never to be called, and rejects them with
   * `reason`; returns their ids (the worker hands them back unstarted: at shutdown, or when a RateLimitError paused
   * their queue or group, so that the batch is not called during the pause only to hit the limit again).
   */
  takePending(reason: Error, matches: (job: Job) => boolean = () => true): string[] {
    const taken: BatchEntry[] = [];
    const kept: BatchEntry[] = [];
    for (const entry of this.pending) (matches(entry.job) ? taken : kept).push(entry);
    if (taken.length === 0) return [];
    this.pending = kept;
    if (this.pending.length === 0) this.stopTimer();
    for (const entry of taken) settle(entry, false, reason);
    return taken.map((entry) => entry.job.id);
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.stopTimer();
    const entries = this.pending.splice(0);
    if (entries.length > 0) void this.call(entries);
  }

  /** Calls the user's `process(jobs)` once and settles each entry from what it returned. */
  private async call(entries: BatchEntry[]): Promise<void> {
    let returned: unknown;
    const jobs = entries.map((entry) => entry.job);
    this.onCall?.(jobs);
    try {
      returned = await this.target.process(jobs);
    } catch (error) {
      for (const entry of entries) settle(entry, false, error);
      return;
    }
    try {
      this.settleFrom(entries, returned);
    } catch (error) {
      // The array threw when read (a Proxy whose length throws): which item is whose cannot be told. Thrown out of
      // here it would leave the batch's jobs running for ever, and reject a promise no one awaits.
      for (const entry of entries) settle(entry, false, error);
    }
  }

  /** Settles each entry from what the call returned: a single value for all, or its own item of an array. */
  private settleFrom(entries: BatchEntry[], returned: unknown): void {
    if (!Array.isArray(returned)) {
      for (const entry of entries) settle(entry, true, returned);
      return;
    }
    const length = returned.length;
    if (length !== entries.length) {
      const error = new InvalidBatchResultError(this.queue, entries.length, length);
      for (const entry of entries) settle(entry, false, error);
      // Items are not used, but their rejections are heard: the caller's promises must not reject unhandled. Up to a
      // bound: an array's length can say billions (holes) and the loop would hold the event loop.
      for (let index = 0; index < Math.min(length, MAX_HEARD_ITEMS); index++) settleFromItem(undefined, returned, index);
      return;
    }
    entries.forEach((entry, index) => settleFromItem(entry, returned, index, this.queue));
  }
}

/**
 * Item `index` of the returned array: an Error or a rejected promise fails its job, anything else is its result. An
 * item that throws when read or looked at (a Proxy's trap, a revoked Proxy, a `then` getter that throws) fails its job
 * with that error: thrown out of here it would leave this job and the batch's later ones running for ever, and reject
 * a promise no one awaits. A hole (an index never assigned) fails its job for good with InvalidBatchResultError.
 * Without an entry (an item of an array refused for its length) only a promise's rejection is heard.
 */
function settleFromItem(entry: BatchEntry | undefined, items: unknown[], index: number, queue?: string): void {
  let item: unknown;
  let present: boolean;
  try {
    present = index in items;
    item = items[index];
  } catch (error) {
    if (entry) settle(entry, false, error);
    return;
  }
  // A hole is no item at all (an index never assigned): completing its job with no result would acknowledge work the
  // handler may never have done.
  if (entry && !present) return settle(entry, false, new InvalidBatchResultError(queue ?? '', items.length, items.length, index));
  settleFromValue(entry, item);
}

/** An item read (or a promise's value): see settleFromItem. */
function settleFromValue(entry: BatchEntry | undefined, item: unknown): void {
  try {
    if (isThenable(item)) {
      Promise.resolve(item).then(
        (value) => settleFromValue(entry, value),
        (error: unknown) => entry && settle(entry, false, error),
      );
      return;
    }
    if (!entry) return;
    if (item instanceof Error) settle(entry, false, item);
    else settle(entry, true, item);
  } catch (error) {
    if (entry) settle(entry, false, error);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** Settles an entry once; its abort hook (or listener) goes with it. */
function settle(entry: BatchEntry, ok: boolean, value: unknown): void {
  if (entry.settled) return;
  entry.settled = true;
  if (entry.controller) entry.controller.onAbort(undefined);
  else if (entry.listener) entry.job.signal.removeEventListener('abort', entry.listener);
  if (ok) entry.resolve(value);
  else entry.reject(value);
}
