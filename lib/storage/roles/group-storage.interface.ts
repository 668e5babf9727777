import type { CountRow, GroupLoad, JobRecord, ListJobsQuery } from '../storage-records';

/** Reading a queue's job groups (`JobOptions.group`): counts, listings and load, through the indexes of grouped jobs. */
export interface GroupStorage {
  /**
   * Job counts of one group of a queue, per status (statuses without jobs absent); of one job name within it when
   * `name` is given (a filter on the group's index entries' rows).
   */
  groupCounts(queue: string, group: string, name?: string): Promise<CountRow[]>;
  /** Jobs of one group of a queue, newest first, optionally of one status and one name. */
  listGroupJobs(queue: string, group: string, query: ListJobsQuery): Promise<JobRecord[]>;
  /**
   * The queue's groups with the most running jobs, most first (ties by name), at most `limit`, each with its running
   * and pending counts (pending counted up to `GROUP_PENDING_COUNT_CAP`, beyond which it reads as that cap).
   */
  busiestGroups(queue: string, limit: number): Promise<GroupLoad[]>;
}
