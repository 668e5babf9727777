import type { JobRecord } from '../storage-records';

/** What one statement reads about a job for `QueueAdmin.explain`: the job, its queue's state row, its children. */
export interface ExplainFacts {
  readonly job: JobRecord;
  /** An operator paused the queue. */
  readonly paused: boolean;
  /** The end of a RateLimitError pause, or of a used-up rate window, whichever is later (0: none). */
  readonly limitedUntil: number;
  /** Until when some process announced a processor for the queue (null: never). */
  readonly processorUntil: number | null;
  /** The queue's running jobs whose lease has not expired (what a global concurrency counts). */
  readonly runningLive: number;
  /** The running jobs of the job's group whose lease has not expired (what a group concurrency counts; 0: no group). */
  readonly groupRunningLive: number;
  /**
   * The end of a GroupRateLimitError pause of the job's group, or of its used-up group window under the queue's stored
   * group limiter, whichever is later (0: none, or no group).
   */
  readonly groupLimitedUntil: number;
  /** The job's children still pending or running. */
  readonly childrenLeft: number;
  /** The ids of the jobs it depends on (`dependsOn`) still pending or running, oldest first. */
  readonly dependenciesLeft: string[];
}

/** Reading why a job waits (`QueueAdmin.explain`). */
export interface ExplainStorage {
  /** The facts about job `id` at `now`, in one statement; null when no job has that id. */
  explainFacts(id: string, now: number): Promise<ExplainFacts | null>;
}
