import type { AttemptRef, ExpiredLease, RecoveredJob } from '../storage-records';

/** The leases of running jobs: heartbeats, cross-process cancellation, and the recovery of expired leases (`LeaseKeeper`, `ExpiredLeaseRecovery`). */
export interface LeaseStorage {
  /**
   * Extends, in one statement, by `leaseDuration` ms (measured like `claim`'s), the leases of these jobs of
   * `workerId`: only those, so a running row under the same worker id that this process does not hold (a crashed
   * process with the same fixed `workerId`) expires.
   */
  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number>;
  /**
   * True where a heartbeat may leave out the attempts claimed within its last beat (PostgreSQL: its statements wait
   * for no file lock, so a renewal is never late by a busy wait). Absent: every held attempt is renewed at every beat,
   * which SQLite's minimum `leaseDuration` counts on.
   */
  readonly skipsFreshLeases?: boolean;
  /** Of the given attempts of `workerId`, those that an operator cancelled meanwhile. */
  findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]>;
  /**
   * Requeues (or fails, when out of attempts) running jobs whose lease ended before `now`. Each requeued job is
   * due at `now` plus its own random delay below `jitterWindow` ms, so jobs that were claimed together when their
   * process died are not claimed together again: one that kills its process every time then does not take the
   * same neighbour down with it on every attempt. The jobs whose ids are in `skip` are left as they are.
   */
  recoverExpiredLeases(now: number, jitterWindow: number, skip?: readonly string[]): Promise<RecoveredJob[]>;
  /**
   * `recoverExpiredLeases` for one job, for when the statement over all of them fails: null when the job is not
   * running under an expired lease (any more).
   */
  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null>;
  /** The running jobs whose lease ended before `now`, but those in `skip`, oldest first. */
  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]>;
}
