import { NewJobRecord, ScheduleOccurrence, ScheduleRecord } from '../../queue-storage.interface';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { dueSchedules, enqueueOccurrence, enqueueScheduleRun, listSchedules, removeSchedule, upsertSchedule } from '../sql/schedules.sql';
import { ScheduleStorage } from '../../roles/schedule-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `ScheduleStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresScheduleStorage implements ScheduleStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  upsertSchedule(schedule: ScheduleRecord, now: number): Promise<void> {
    return upsertSchedule(this.db, schedule, now);
  }

  removeSchedule(queue: string, name: string): Promise<boolean> {
    return removeSchedule(this.db, queue, name);
  }

  listSchedules(): Promise<ScheduleRecord[]> {
    return listSchedules(this.db);
  }

  dueSchedules(now: number): Promise<ScheduleRecord[]> {
    return dueSchedules(this.db, now);
  }

  enqueueOccurrence(occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
    return enqueueOccurrence(this.db, occurrence, now);
  }

  enqueueScheduleRun(queue: string, name: string, runKey: string, job: NewJobRecord, now: number): Promise<string | null> {
    return enqueueScheduleRun(this.db, queue, name, runKey, job, now);
  }
}
