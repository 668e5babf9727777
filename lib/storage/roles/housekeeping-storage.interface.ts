import type { FinishedJobStatus } from '../../interfaces/job-info.interface';
import type { OldestDueRow, ProcessAnnouncement, RetentionRule } from '../storage-records';

/** Background upkeep: retention of finished jobs, and which queues some process processes (`RetentionKeeper`, `ProcessorAnnouncer`). */
export interface HousekeepingStorage {
  /** Deletes the given jobs that are (still) in `status` (per-job removeOnComplete / removeOnFail). Returns how many. */
  removeFinishedJobs(ids: string[], status: 'completed' | 'failed'): Promise<number>;
  /** Applies a retention rule to one queue's finished jobs of one status, deleting at most `limit`. */
  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number>;
  /**
   * Records, in one statement whatever the number of queues, that this process has processors for `queues` until
   * `until` (epoch ms); renewed periodically, so a process that died stops counting once its announcement lapses.
   */
  announceProcessors(queues: string[], until: number, now: number): Promise<void>;
  /**
   * Records which processors this process runs (one row per queue of the processes table), and forgets the rows of
   * other processes whose announcement ended before `forgetBefore`, and this worker id's rows of queues it no longer
   * processes (a restart under a fixed `workerId` with other processors). Off the hot path: once per period.
   */
  announceProcess(announcement: ProcessAnnouncement, now: number, forgetBefore: number): Promise<void>;
  /** Marks this process (worker id and start) shut down at `now`: its rows end there, as stopped rather than lost. */
  endProcess(workerId: string, startedAt: number, now: number): Promise<void>;
  /** Queues some process announced a processor for, still valid at `now`. */
  processedQueues(now: number): Promise<string[]>;
  /**
   * Queues with pending jobs due by `dueBy` and no processor announced at `now`, each with the due time of one such
   * job (the first in claim order): one index seek per queue, whatever the backlog.
   */
  unprocessedQueues(dueBy: number, now: number): Promise<OldestDueRow[]>;
  /**
   * Deletes at most `limit` rows of the groups' rate windows and pauses that ended by `now` (they hold nothing back:
   * a group's next claim opens a new window either way), so the table keeps only the groups that ran lately. How many.
   */
  forgetGroupWindows(now: number, limit: number): Promise<number>;
}
