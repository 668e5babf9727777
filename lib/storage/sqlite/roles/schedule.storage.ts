import { NewJobRecord, ScheduleOccurrence, ScheduleRecord } from '../../queue-storage.interface';
import { dueSchedules, enqueueOccurrence, enqueueScheduleRun, listSchedules, removeSchedule, upsertSchedule } from '../sql/schedules.sql';
import { SqliteConnection } from '../sqlite-connection';
import { ScheduleStorage } from '../../roles/schedule-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `ScheduleStorage` on SQLite: see the role's interface for each member. */
export class SqliteScheduleStorage implements ScheduleStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    return upsertSchedule(this.db.runner, schedule, now);
  }

  removeSchedule(queue: string, name: string): Promise<boolean> {
    return removeSchedule(this.db.runner, queue, name);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return listSchedules(this.db.runner);
  }

  dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return dueSchedules(this.db.background, now);
  }

  async enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    const inserted = await enqueueOccurrence(this.db.background, occurrence, now);
    if (inserted) this.db.inserted();
    return inserted;
  }

  async enqueueScheduleRun(queue: string, name: string, runKey: string, job: NewJobRecord, now: number): Promise<string | null> {
    const id = await enqueueScheduleRun(this.db.runner, queue, name, runKey, job, now);
    if (id !== null) this.db.inserted();
    return id;
  }
}
