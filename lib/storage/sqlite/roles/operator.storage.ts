import { JobRecord, ProcessorAnnouncementRow, PromoteOutcome, ProcessRow, WorkerActivityRow } from '../../queue-storage.interface';
import { lastScheduleRun, pauseSchedule, processorAnnouncements, promoteJob, resumeSchedule, runningByWorker } from '../sql/operator.sql';
import { processRows } from '../sql/processes.sql';
import { SqliteConnection } from '../sqlite-connection';
import { OperatorStorage } from '../../roles/operator-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `OperatorStorage` on SQLite: see the role's interface for each member. */
export class SqliteOperatorStorage implements OperatorStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  promote(id: string, now: number): Promise<PromoteOutcome | null> {
    return promoteJob(this.db.runner, id, now);
  }

  pauseSchedule(queue: string, name: string, now: number): Promise<boolean> {
    return pauseSchedule(this.db.runner, queue, name, now);
  }

  resumeSchedule(queue: string, name: string, nextRunAt: number, now: number): Promise<boolean> {
    return resumeSchedule(this.db.runner, queue, name, nextRunAt, now);
  }

  lastScheduleRun(queue: string, name: string): Promise<JobRecord | null> {
    return lastScheduleRun(this.db.runner, queue, name);
  }

  processorAnnouncements(now: number): Promise<ProcessorAnnouncementRow[]> {
    return processorAnnouncements(this.db.runner, now);
  }

  processRows(since: number): Promise<ProcessRow[]> {
    return processRows(this.db.runner, since);
  }

  runningByWorker(): Promise<WorkerActivityRow[]> {
    return runningByWorker(this.db.runner);
  }
}
