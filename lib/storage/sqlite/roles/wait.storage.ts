import { WaitedJobs } from '../../queue-storage.interface';
import { getWaitedJobs, markFinishWaiters } from '../sql/events.sql';
import { SqliteConnection } from '../sqlite-connection';
import { WaitStorage } from '../../roles/wait-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `WaitStorage` on SQLite: see the role's interface for each member. */
export class SqliteWaitStorage implements WaitStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  getWaitedJobs(ids: string[]): Promise<WaitedJobs> {
    return getWaitedJobs(this.db.background, ids);
  }

  markFinishWaiters(now: number): Promise<void> {
    return markFinishWaiters(this.db.background, now);
  }
}
