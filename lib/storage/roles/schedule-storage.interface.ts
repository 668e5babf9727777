import type { NewJobRecord, ScheduleOccurrence, ScheduleRecord } from '../storage-records';

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
  /**
   * Enqueues a run of a schedule made by hand ("run now"), in one statement: not an occurrence, so the schedule's
   * next run is left as it is and no other run is a duplicate of it. `runKey` is its schedule key (`<name>@<digits>`,
   * see `scheduleRunKey`). The new job's id, or null when no such schedule exists or another job has that key.
   */
  enqueueScheduleRun(queue: string, name: string, runKey: string, job: NewJobRecord, now: number): Promise<string | null>;
}
