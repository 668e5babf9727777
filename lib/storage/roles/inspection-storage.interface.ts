import type { CountRow, FailureRow, FinishedJobTiming, JobRecord, ListJobsQuery, OldestDueRow } from '../storage-records';

/** Reading jobs and queues without changing them (`QueueAdmin`, metrics, health, `waitUntilIdle`). */
export interface InspectionStorage {
  /** One job, or null. */
  getJob(id: string): Promise<JobRecord | null>;
  /** A job's stored log (a JSON array of lines, or null for none); undefined when there is no such job. */
  getJobLogs(id: string): Promise<string | null | undefined>;
  /** Jobs of a queue, newest first. */
  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]>;
  /** Jobs of a queue with this unique key, in any status, newest first, at most `limit`. */
  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]>;
  /** Job counts per queue and status, optionally of one queue, and within it of one job name (`name` needs `queue`). */
  getCounts(queue?: string, name?: string): Promise<CountRow[]>;
  /** Queues currently paused. */
  getPausedQueues(): Promise<string[]>;
  /**
   * Whether the database knows the queue: it has a job of it (any status), a row of its state (paused or resumed,
   * declared limits, a processor's announcement, live or lapsed) or a schedule. One statement.
   */
  queueKnown(queue: string): Promise<boolean>;
  /**
   * The newest failed jobs of a queue (by finish time, through the index of finished jobs), at most `limit`, each
   * with the head of its error only: a bounded read whatever the history and the size of stored stacks.
   */
  recentFailures(queue: string, limit: number): Promise<FailureRow[]>;
  /** Timings of jobs finished at or after `since`, newest first, at most `limit`. */
  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]>;
  /** Per queue, the run time of its oldest due pending job (queues without one are absent). */
  oldestDuePending(now: number): Promise<OldestDueRow[]>;
  /**
   * Whether a job is running, or pending and due by `now` in a queue not paused; of one queue, or of every queue.
   * One statement: the answer is of one moment, whatever moves between pending and running meanwhile.
   */
  hasWork(queue: string | undefined, now: number): Promise<boolean>;
}
