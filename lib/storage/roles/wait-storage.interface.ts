import type { Observable } from 'rxjs';
import type { WaitedJobs } from '../storage-records';

/** Waiting for jobs to finish, from any process (`FinishWatcher`). */
export interface WaitStorage {
  /**
   * Where the database can tell (PostgreSQL NOTIFY): ids of jobs any process just finished (completed, failed or
   * cancelled), or null for "some jobs, unknown which". A hint: waiters re-check the database. Absent on SQLite.
   * Available once `initialize` resolved.
   */
  readonly finishHints$?: Observable<string[] | null>;
  /**
   * Of these jobs, those that are completed, failed or cancelled, and the ids no job has (removed, or never there),
   * in one statement whatever their number. Ids that cannot name a job are left out of both.
   */
  getWaitedJobs(ids: string[]): Promise<WaitedJobs>;
  /**
   * Renews the shared heartbeat of waiting processes. Where finished jobs are announced (`finishHints$`), no
   * announcement is sent without it (so the hot path pays nothing while nobody waits); on every backend, completions
   * keep the rows retention would delete while it is fresh (a waiter reads the finished row).
   */
  markFinishWaiters?(now: number): Promise<void>;
}
