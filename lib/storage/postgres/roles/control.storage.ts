import { JobStatus } from '../../../interfaces/job-info.interface';
import { JobRecord, KeyBlockedJob } from '../../queue-storage.interface';
import { cancelJob, debounceKeyHolder, keyBlockedFailed, removeJob, retryFinished, setPaused } from '../sql/control.sql';
import { findLiveByKeys } from '../sql/enqueue.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { cleanJobs } from '../sql/retention.sql';
import { ControlStorage } from '../../roles/control-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `ControlStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresControlStorage implements ControlStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return findLiveByKeys(this.db, queue, keys);
  }

  setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    return setPaused(this.db, queue, paused, now);
  }

  cancel(id: string, now: number): Promise<JobStatus | null> {
    return cancelJob(this.db, id, now);
  }

  retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    return retryFinished(this.db, target, now);
  }

  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    return keyBlockedFailed(this.db, queue, finishedAtMost);
  }

  debounceKeyHolder(id: string): Promise<JobRecord | null> {
    return debounceKeyHolder(this.db, id);
  }

  remove(id: string, now: number): Promise<JobStatus | null> {
    return removeJob(this.db, id, now);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    return cleanJobs(this.db, queue, statuses, before);
  }
}
