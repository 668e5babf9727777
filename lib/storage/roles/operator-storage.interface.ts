import type { JobRecord, ProcessRow, ProcessorAnnouncementRow, PromoteOutcome, WorkerActivityRow } from '../storage-records';

/**
 * What an operator's console needs beyond `ControlStorage` (the dashboard's "run now", schedule controls and process
 * list, through `QueueAdmin`). Each member is one statement.
 */
export interface OperatorStorage {
  /**
   * Makes a delayed pending job due at `now` (a flow parent waiting for its children is left as it is). Returns what
   * the job is after the call and whether it moved, or null when there is no such job.
   */
  promote(id: string, now: number): Promise<PromoteOutcome | null>;
  /**
   * Pauses a schedule (its next run is kept, pushed past any due time: see shared/schedule-pause.ts). False when
   * there is no such schedule; a paused or parked one is left as it is.
   */
  pauseSchedule(queue: string, name: string, now: number): Promise<boolean>;
  /** Resumes a paused schedule at `nextRunAt`. False when there is no such schedule or it is not paused. */
  resumeSchedule(queue: string, name: string, nextRunAt: number, now: number): Promise<boolean>;
  /** The newest job a schedule enqueued (by its occurrence key), whatever its status, or null. */
  lastScheduleRun(queue: string, name: string): Promise<JobRecord | null>;
  /** Every queue's processor announcement that has not lapsed at `now`. */
  processorAnnouncements(now: number): Promise<ProcessorAnnouncementRow[]>;
  /** The processes table's rows whose announcement holds at `since` or later (live, or ended since), by worker id and queue. */
  processRows(since: number): Promise<ProcessRow[]>;
  /** Running jobs per worker id and queue, with each pair's latest write. */
  runningByWorker(): Promise<WorkerActivityRow[]>;
}
