import { CountRow, FailureRow, FinishedJobTiming, JobRecord, ListJobsQuery, OldestDueRow } from '../../queue-storage.interface';
import { getJobLogs } from '../sql/job-details.sql';
import {
  countJobs,
  finishedSince,
  recentFailures,
  getJob,
  hasWork,
  jobsByKey,
  listJobs,
  oldestDuePending,
  pausedQueues,
  queueKnown,
} from '../sql/inspect.sql';
import { SqliteConnection } from '../sqlite-connection';
import { InspectionStorage } from '../../roles/inspection-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `InspectionStorage` on SQLite: see the role's interface for each member. */
export class SqliteInspectionStorage implements InspectionStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  getJobLogs(id: string): Promise<string | null | undefined> {
    return getJobLogs(this.db.runner, id);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.db.runner, id);
  }

  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listJobs(this.db.runner, queue, query);
  }

  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]> {
    return jobsByKey(this.db.runner, queue, key, limit);
  }

  getCounts(queue?: string, name?: string): Promise<CountRow[]> {
    return countJobs(this.db.runner, queue, name);
  }

  getPausedQueues(): Promise<string[]> {
    return pausedQueues(this.db.runner);
  }

  queueKnown(queue: string): Promise<boolean> {
    return queueKnown(this.db.runner, queue);
  }

  recentFailures(queue: string, limit: number): Promise<FailureRow[]> {
    return recentFailures(this.db.runner, queue, limit);
  }

  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    return finishedSince(this.db.runner, since, limit);
  }

  oldestDuePending(now: number): Promise<OldestDueRow[]> {
    return oldestDuePending(this.db.runner, now);
  }

  hasWork(queue: string | undefined, now: number): Promise<boolean> {
    return hasWork(this.db.runner, queue, now);
  }
}
