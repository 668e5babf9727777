import type { JobStatus } from '../../interfaces/job-info.interface';
import type { JobRecord, KeyBlockedJob } from '../storage-records';

/** What an operator changes: pause, cancel, retry, remove, clean (`QueueAdmin`). */
export interface ControlStorage {
  /** Pauses or resumes a queue for every process sharing the database. */
  setPaused(queue: string, paused: boolean, now: number): Promise<void>;
  /**
   * Cancels a pending or running job. Returns the job's status before the call, or null when there is no
   * such job; only `pending` and `running` jobs change.
   */
  cancel(id: string, now: number): Promise<JobStatus | null>;
  /**
   * Puts failed or cancelled jobs back to pending with a fresh set of attempts: the given ids, or all of a
   * queue's. A flow parent with children still pending or running waits for them again (decided in the same
   * statement, against children ending concurrently). Returns the ids that changed.
   */
  retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]>;
  /** Live (pending or running) jobs of `queue` holding these keys. */
  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]>;
  /**
   * For a debounced job that never started (pending again after a retry would put it back in the debounce key index):
   * the other unstarted debounced job of its key, which keeps it from being retried; null for any other job.
   */
  debounceKeyHolder(id: string): Promise<JobRecord | null>;
  /** Failed jobs of `queue`, finished no later than `finishedAtMost`, whose key a live job holds (so a retry skips them). */
  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]>;
  /**
   * Deletes a job that is not running. Returns its status before, or null when there is no such job. Where finished
   * jobs are announced, the deletion is announced the same way (checked against the waiters' heartbeat at `now`), so
   * a wait for the job anywhere learns at once that it is gone.
   */
  remove(id: string, now: number): Promise<JobStatus | null>;
  /** Deletes a queue's jobs of the given statuses finished (or, for pending, created) before `before`. Returns how many. */
  clean(queue: string, statuses: JobStatus[], before: number): Promise<number>;
}
