import type { ScheduleOccurrence, ScheduleRecord } from '../storage-records';

/** Recurring jobs: their definitions and the exactly-once enqueue of each occurrence (`Scheduler`). */
export interface ScheduleStorage {
  /** Creates or replaces a schedule; one stored with the same definition is left as it is (its next run kept). */
  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void>;
  /** Deletes a schedule; false when there was none. */
  removeSchedule(queue: string, name: string): Promise<boolean>;
  /** Every schedule. */
  listSchedules(): Promise<ScheduleRecord[]>;
  /** Schedules whose next occurrence is due at `now`. */
  dueSchedules(now: number): Promise<ScheduleRecord[]>;
  /**
   * Enqueues one occurrence exactly once across all processes (a unique index on the occurrence decides),
   * then advances the schedule if nobody else did. May be two statements (SQLite): a crash between them is repaired
   * by the next attempt, which finds the occurrence already enqueued, unless its job already ran and was removed
   * (see sqlite/sql/schedules.sql.ts). True when this call inserted the job.
   */
  enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean>;
}
