import { JobStatus } from '../../../interfaces/job-info.interface';
import { JobRecord, KeyBlockedJob } from '../../queue-storage.interface';
import { cancelJob, debounceKeyHolder, keyBlockedFailed, removeJob, retryFinished, setPaused } from '../sql/control.sql';
import { findLiveByKeys } from '../sql/enqueue.sql';
import { cleanJobs } from '../sql/retention.sql';
import { SqliteConnection } from '../sqlite-connection';
import { ControlStorage } from '../../roles/control-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `ControlStorage` on SQLite: see the role's interface for each member. */
export class SqliteControlStorage implements ControlStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  findLiveByKeys(queue: string, keys: string[]): Promise<JobRecord[]> {
    return findLiveByKeys(this.db.runner, queue, keys);
  }

  setPaused(queue: string, paused: boolean, now: number): Promise<void> {
    return setPaused(this.db.runner, queue, paused, now);
  }

  cancel(id: string, now: number): Promise<JobStatus | null> {
    return cancelJob(this.db.runner, id, now);
  }

  async retryFinished(target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
    const ids = await retryFinished(this.db.runner, target, now);
    if (ids.length > 0) this.db.inserted();
    return ids;
  }

  keyBlockedFailed(queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
    return keyBlockedFailed(this.db.runner, queue, finishedAtMost);
  }

  debounceKeyHolder(id: string): Promise<JobRecord | null> {
    return debounceKeyHolder(this.db.runner, id);
  }

  remove(id: string, _now: number): Promise<JobStatus | null> {
    // No cross-process announcement on SQLite: waits elsewhere find the job gone at their next poll.
    return removeJob(this.db.runner, id);
  }

  clean(queue: string, statuses: JobStatus[], before: number): Promise<number> {
    return cleanJobs(this.db.runner, queue, statuses, before);
  }
}
