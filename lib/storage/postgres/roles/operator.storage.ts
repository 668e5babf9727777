import { JobRecord, ProcessorAnnouncementRow, PromoteOutcome, ProcessRow, WorkerActivityRow } from '../../queue-storage.interface';
import { lastScheduleRun, pauseSchedule, processorAnnouncements, promoteJob, resumeSchedule, runningByWorker } from '../sql/operator.sql';
import { processRows } from '../sql/processes.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { OperatorStorage } from '../../roles/operator-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `OperatorStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresOperatorStorage implements OperatorStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  promote(id: string, now: number): Promise<PromoteOutcome | null> {
    return promoteJob(this.db, id, now);
  }

  pauseSchedule(queue: string, name: string, now: number): Promise<boolean> {
    return pauseSchedule(this.db, queue, name, now);
  }

  resumeSchedule(queue: string, name: string, nextRunAt: number, now: number): Promise<boolean> {
    return resumeSchedule(this.db, queue, name, nextRunAt, now);
  }

  lastScheduleRun(queue: string, name: string): Promise<JobRecord | null> {
    return lastScheduleRun(this.db, queue, name);
  }

  processorAnnouncements(now: number): Promise<ProcessorAnnouncementRow[]> {
    return processorAnnouncements(this.db, now);
  }

  processRows(since: number): Promise<ProcessRow[]> {
    return processRows(this.db, since);
  }

  runningByWorker(): Promise<WorkerActivityRow[]> {
    return runningByWorker(this.db);
  }
}
