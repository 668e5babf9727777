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
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { InspectionStorage } from '../../roles/inspection-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `InspectionStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresInspectionStorage implements InspectionStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  getJobLogs(id: string): Promise<string | null | undefined> {
    return getJobLogs(this.db, id);
  }

  getJob(id: string): Promise<JobRecord | null> {
    return getJob(this.db, id);
  }

  listJobs(queue: string, query: ListJobsQuery): Promise<JobRecord[]> {
    return listJobs(this.db, queue, query);
  }

  jobsByKey(queue: string, key: string, limit: number): Promise<JobRecord[]> {
    return jobsByKey(this.db, queue, key, limit);
  }

  getCounts(queue?: string, name?: string): Promise<CountRow[]> {
    return countJobs(this.db, queue, name);
  }

  getPausedQueues(): Promise<string[]> {
    return pausedQueues(this.db);
  }

  queueKnown(queue: string): Promise<boolean> {
    return queueKnown(this.db, queue);
  }

  recentFailures(queue: string, limit: number): Promise<FailureRow[]> {
    return recentFailures(this.db, queue, limit);
  }

  finishedSince(since: number, limit: number): Promise<FinishedJobTiming[]> {
    return finishedSince(this.db, since, limit);
  }

  oldestDuePending(now: number): Promise<OldestDueRow[]> {
    return oldestDuePending(this.db, now);
  }

  hasWork(queue: string | undefined, now: number): Promise<boolean> {
    return hasWork(this.db, queue, now);
  }
}
