import type { Observable } from 'rxjs';
import type { AttemptRef, ClaimRequest, Completion, JobRecord } from '../storage-records';

/** Taking due jobs and writing what their attempts did, each write fenced by the attempt (the poller, the workers and their outcome writer). */
export interface ClaimStorage {
  /** Hints that jobs were inserted (by this process, or by anyone where the database can tell). Never authoritative. */
  readonly insertHints$: Observable<void>;
  /**
   * Atomically takes up to each request's limit of due pending jobs of queues that are not paused,
   * marking them running for `workerId` for `leaseDuration` ms, their `started_at` unset: a claimed job may wait in its
   * process for a slot (a prefetch), and only its handler's start (`markStarted`, or the write that ends the attempt)
   * says it runs. Where a statement can wait for a lock (SQLite's
   * busy timeout), the lease is measured from when it runs, not from `now`, so the wait does not eat the lease.
   */
  claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]>;
  /**
   * Records when handlers were given these attempts (each ref's `startedAt`), in one statement, where no start is
   * recorded yet, and the batch call size of those that carry one (`batch`) where it is not recorded yet: a job of a
   * long batch call shows its size while it runs. Returns how many rows took either. Fenced like an outcome: an
   * attempt no longer ours writes nothing.
   */
  markStarted(refs: AttemptRef[], workerId: string): Promise<number>;
  /**
   * Marks many attempts completed in one statement (each with its ref's `startedAt` and `batch`, if set); returns the ids of those this worker still owned
   * (the others were cancelled or lost their lease meanwhile).
   */
  completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>>;
  /**
   * Puts an attempt back to pending until `runAt`, with its error; false when no longer owned. This and `fail` record
   * the run with the ref's `startedAt` and `batch`, where set.
   */
  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean>;
  /** Marks an attempt failed for good; false when no longer owned. */
  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean>;
  /** Hands attempts back to pending as if they never started; returns how many were still owned. */
  release(refs: AttemptRef[], workerId: string, now: number): Promise<number>;
  /** Stores progress of a running attempt; false when no longer owned. */
  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean>;
  /**
   * Appends a line to a running attempt's job log, keeping at most `maxLines` (the oldest go); false when no longer
   * owned.
   */
  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean>;
  /** Replaces a running attempt's job data (JSON); false when no longer owned. */
  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean>;
}
