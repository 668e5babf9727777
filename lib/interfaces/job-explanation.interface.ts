import { JobStatus } from './job-info.interface';

/**
 * Why a job is where it is, as `QueueAdmin.explain(id)` says. The first that applies, in this order: `finished`,
 * `claimed-ahead` (status `running`, claimed by a process ahead of a free slot, no handler has it yet), `running`, `waiting-for-dependencies`, `waiting-for-children`, `paused`, `delayed` / `retry-backoff`, `no-processor`, `rate-limited`,
 * `group-rate-limited`, `global-concurrency`, `group-concurrency`, and `due` when nothing holds the job back but a free
 * slot.
 */
export type JobExplanationReason =
  | 'finished'
  | 'claimed-ahead'
  | 'running'
  | 'waiting-for-dependencies'
  | 'waiting-for-children'
  | 'paused'
  | 'delayed'
  | 'retry-backoff'
  | 'no-processor'
  | 'rate-limited'
  | 'group-rate-limited'
  | 'global-concurrency'
  | 'group-concurrency'
  | 'due';

/** What `QueueAdmin.explain(id)` returns. */
export interface JobExplanation {
  /** The job's status now. */
  status: JobStatus;
  /** Why it is there (see `JobExplanationReason`). */
  reason: JobExplanationReason;
  /**
   * When what holds it ends: the lease's expiry (`running`, `claimed-ahead`), the run time (`delayed`, `retry-backoff`), the end of the
   * rate window or RateLimitError pause (`rate-limited`), of the group's window or GroupRateLimitError pause
   * (`group-rate-limited`). Absent when nothing says when.
   */
  until?: Date;
  /** One sentence for a person: what holds the job, and what would move it. */
  detail: string;
  /** `running`, `claimed-ahead`: the worker id of the process that holds the job. */
  owner?: string;
  /** `waiting-for-children`: how many of its children are still pending or running. */
  childrenLeft?: number;
  /** `waiting-for-dependencies`: the ids of the jobs it depends on (`dependsOn`) still pending or running. */
  dependenciesLeft?: string[];
}
