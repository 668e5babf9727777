import { Logger } from '@nestjs/common';
import { Subscription, filter } from 'rxjs';
import { JobNotFoundError } from '../errors/job-not-found.error';
import { ShutdownAbortError } from '../errors/shutdown-abort.error';
import { WaitTimeoutError } from '../errors/wait-timeout.error';
import { asStorageError } from '../errors/storage.error';
import { isTransientStorageError } from '../errors/codes/transient-error';
import { InspectionStorage, JobRecord, CallerTransaction, WaitStorage } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';
import { JobEventBus } from './job-event-bus';
import { RecentCompletions } from './recent-completions';

/** What the finish watcher reads: waited jobs, and one job when a hint names it. */
type FinishWatcherStorage = WaitStorage & Pick<InspectionStorage, 'getJob'>;

interface Waiter {
  resolve(record: JobRecord): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
  /** Stops following the rollback of the transaction the job was written in. */
  unfollow?: () => void;
}

const FINAL_EVENTS = new Set(['completed', 'failed', 'cancelled']);

/** How often waiting processes renew the heartbeat that turns finish notifications on (ms); they count for 15 s. */
const WAITERS_HEARTBEAT_MS = 5000;

/**
 * The one mechanism behind every `waitUntilFinished` of the process, however many wait. Jobs this process finishes
 * are seen at once through its own events; jobs another process finishes (or an operator cancels) are found by ONE
 * statement per `pollInterval` for all waited ids together, sent only while someone waits: no per-waiter polling,
 * nothing at all when nobody waits. Where the database announces finished jobs (PostgreSQL: a NOTIFY per outcome
 * batch, on the process's one LISTEN connection), a waited-for job finished elsewhere is read at once instead of at
 * the next poll, which stays as the safety net for lost notifications. Each look also finds the waited jobs that
 * were removed meanwhile: their waits reject with `JobNotFoundError`. Those announcements are sent only while some
 * process waits: waiting processes renew one shared heartbeat row every 5 s (one write, only while waiting). The same
 * row keeps completions, on every backend, from deleting the rows of jobs whose retention keeps nothing: a job that
 * finishes after a wait's first look is read completed, not found removed. One that this process completed and
 * deleted just before the wait began (an add, then a wait) is read completed from `RecentCompletions`.
 */
export class FinishWatcher {
  private readonly waiting = new Map<string, Set<Waiter>>();
  private readonly failures: FailureStreak;
  private timer?: NodeJS.Timeout;
  private local?: Subscription;
  private remote?: Subscription;
  private subscribing = false;
  private heartbeatAt = -Infinity;
  private heartbeat?: Promise<void>;
  /** Renews the heartbeat while someone waits, whatever the pollInterval (it counts for 15 s only). */
  private heartbeatTimer?: NodeJS.Timeout;
  private readonly soon = new Set<string>();
  private closed = false;

  constructor(
    private readonly storage: () => Promise<FinishWatcherStorage>,
    private readonly bus: JobEventBus,
    private readonly pollInterval: number,
    logger: Logger,
    private readonly recent?: RecentCompletions,
  ) {
    this.failures = new FailureStreak(logger, 'Checking waited-for jobs', pollInterval);
  }

  /**
   * Resolves with the job's record once it is completed, failed or cancelled (at once if it already is); rejects
   * with `JobNotFoundError` when no job has that id, or once the job is found removed (at the next look: at once
   * for a removal by this process or, where removals are announced, by any process; else within `pollInterval`).
   * With the `transaction` the job was written in: rejects with JobNotFoundError once that rolls back (the job
   * never existed, and on SQLite its id may be given to another job).
   * A look the database fails for now (busy, a connection lost) is looked at again by the poll; a failure no retry can
   * get past rejects with `StorageError`.
   * @throws JobNotFoundError, WaitTimeoutError, ShutdownAbortError (the application closed first), StorageError.
   */
  wait(id: string, timeout?: number, transaction?: CallerTransaction): Promise<JobRecord> {
    if (this.closed) return Promise.reject(new ShutdownAbortError(`Cannot wait for job ${id}: the queue module is shut down`));
    if (transaction?.rolledBack) return Promise.reject(new JobNotFoundError(id));
    return new Promise<JobRecord>((resolve, reject) => {
      // Registered before the first look, so a finish between that look and now is not missed.
      const waiter: Waiter = { resolve, reject };
      waiter.unfollow = transaction?.onRollback(() => {
        if (this.remove(id, waiter)) reject(new JobNotFoundError(id));
      });
      if (timeout !== undefined) {
        waiter.timer = setTimeout(() => {
          this.remove(id, waiter);
          reject(new WaitTimeoutError(`job ${id}`, timeout));
        }, timeout);
      }
      let set = this.waiting.get(id);
      if (!set) this.waiting.set(id, (set = new Set()));
      set.add(waiter);
      this.ensureRunning();
      void this.firstLook(id, waiter);
    });
  }

  /**
   * This process removed jobs (`remove`, `clean`): looks at once at the waited ones among `ids` (all of them when
   * `ids` is left out), so their waits reject with `JobNotFoundError` now rather than at the next poll.
   */
  lookAgain(ids?: string[]): void {
    for (const id of ids ?? [...this.waiting.keys()]) if (this.waiting.has(id)) this.checkSoon(id);
  }

  /** Rejects every waiter (application shutdown) and stops. */
  close(): void {
    this.closed = true;
    for (const [id, waiters] of this.waiting) {
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.unfollow?.();
        waiter.reject(new ShutdownAbortError(`Stopped waiting for job ${id}: the application is shutting down`));
      }
    }
    this.waiting.clear();
    this.stopIfIdle();
  }

  /**
   * Keeps the waiters' heartbeat fresh where the storage announces finished jobs. Awaited before a first look, so a
   * job that finishes after that look is announced (the poll covers the rare batch already running meanwhile).
   */
  private renewHeartbeat(): Promise<void> {
    if (Date.now() - this.heartbeatAt < WAITERS_HEARTBEAT_MS) return Promise.resolve();
    this.heartbeat ??= (async () => {
      try {
        const storage = await this.storage();
        if (!storage.markFinishWaiters) return;
        const now = Date.now();
        await storage.markFinishWaiters(now);
        this.heartbeatAt = now;
      } catch (error) {
        // Without it, waiters still learn of finished jobs from the poll.
        this.failures.failed(error);
      } finally {
        this.heartbeat = undefined;
      }
    })();
    return this.heartbeat;
  }

  private async firstLook(id: string, waiter: Waiter): Promise<void> {
    try {
      await this.renewHeartbeat();
      const record = await (await this.storage()).getJob(id);
      if (record === null) {
        const completed = await this.recent?.completed(id);
        if (completed) this.settle([completed]);
        else if (this.remove(id, waiter)) waiter.reject(new JobNotFoundError(id));
      } else if (record.finishedAt !== null) {
        this.settle([record]);
      }
    } catch (error) {
      // A database that the next look may reach again (busy, a connection lost, a server restarting): the wait goes
      // on, and the poll looks again. Anything else ends it with a typed error, never the driver's own.
      if (isTransientStorageError(error)) return this.failures.failed(error);
      if (this.remove(id, waiter)) waiter.reject(asStorageError(error, 'waitUntilFinished', `job ${id}`) as Error);
    }
  }

  private ensureRunning(): void {
    this.local ??= this.bus.events$
      .pipe(filter((event) => FINAL_EVENTS.has(event.type) && this.waiting.has(event.jobId)))
      .subscribe((event) => this.checkSoon(event.jobId));
    this.timer ??= setTimeout(() => void this.poll(), this.pollInterval);
    if (!this.remote && !this.subscribing) void this.listenRemote();
    if (!this.heartbeatTimer) {
      this.heartbeatTimer = setInterval(() => void this.renewHeartbeat(), WAITERS_HEARTBEAT_MS);
      this.heartbeatTimer.unref();
    }
  }

  /** Follows the storage's finish hints (if it has any) while someone waits. */
  private async listenRemote(): Promise<void> {
    this.subscribing = true;
    try {
      const hints$ = (await this.storage()).finishHints$;
      if (!hints$ || this.waiting.size === 0 || this.remote) return;
      this.remote = hints$.subscribe((ids) => {
        // null: some jobs finished, unknown which (a long batch, or a reconnect after missed notifications).
        for (const id of ids ?? [...this.waiting.keys()]) if (this.waiting.has(id)) this.checkSoon(id);
      });
    } catch {
      // The storage failed to open: the waiters' first look reports it, and the poll keeps trying.
    } finally {
      this.subscribing = false;
    }
  }

  private stopIfIdle(): void {
    if (this.waiting.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.local?.unsubscribe();
    this.local = undefined;
    this.remote?.unsubscribe();
    this.remote = undefined;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
  }

  /** A job of this process finished: read it in the same turn as others that finished with it (one statement). */
  private checkSoon(id: string): void {
    this.soon.add(id);
    if (this.soon.size > 1) return;
    setImmediate(() => {
      const ids = [...this.soon];
      this.soon.clear();
      void this.check(ids);
    });
  }

  private async poll(): Promise<void> {
    const mine = this.timer;
    if (this.waiting.size > 0 && this.failures.canTry()) await this.check([...this.waiting.keys()]);
    // Stopped (or restarted) meanwhile: that timer chain is not ours any more.
    if (this.timer !== mine) return;
    this.timer = undefined;
    if (this.waiting.size > 0 && !this.closed) this.timer = setTimeout(() => void this.poll(), this.pollInterval);
  }

  private async check(ids: string[]): Promise<void> {
    try {
      const { finished, gone } = await (await this.storage()).getWaitedJobs(ids);
      this.settle(finished);
      // A job this process completed with a deleting completion is not lost to its waiters: they read it completed.
      const recent = this.recent;
      if (recent && gone.length > 0) this.settle((await Promise.all(gone.map((id) => recent.completed(id)))).filter((r) => r !== null));
      this.rejectGone(gone);
      this.failures.succeeded();
    } catch (error) {
      this.failures.failed(error);
    }
  }

  /** Jobs removed while waited for (an operator, `clean`, retention) will never finish: their waits end now. */
  private rejectGone(ids: string[]): void {
    for (const id of ids) {
      const waiters = this.waiting.get(id);
      if (!waiters) continue;
      this.waiting.delete(id);
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.reject(new JobNotFoundError(id));
      }
    }
    this.stopIfIdle();
  }

  private settle(records: JobRecord[]): void {
    for (const record of records) {
      const waiters = this.waiting.get(record.id);
      if (!waiters) continue;
      this.waiting.delete(record.id);
      for (const waiter of waiters) {
        clearTimeout(waiter.timer);
        waiter.unfollow?.();
        waiter.resolve(record);
      }
    }
    this.stopIfIdle();
  }

  /** Forgets one waiter; false when it was already settled. */
  private remove(id: string, waiter: Waiter): boolean {
    const waiters = this.waiting.get(id);
    if (!waiters?.delete(waiter)) return false;
    clearTimeout(waiter.timer);
    waiter.unfollow?.();
    if (waiters.size === 0) this.waiting.delete(id);
    this.stopIfIdle();
    return true;
  }
}
