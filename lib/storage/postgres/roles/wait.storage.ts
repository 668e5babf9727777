import { Observable } from 'rxjs';
import { WaitedJobs } from '../../queue-storage.interface';
import { PostgresConnection } from '../postgres-connection';
import { getWaitedJobs, markFinishWaiters } from '../sql/events.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { WaitStorage } from '../../roles/wait-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `WaitStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresWaitStorage implements WaitStorage {
  private readonly connection: PostgresConnection;
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.connection = backend.connection;
    this.db = backend.db;
  }

  get finishHints$(): Observable<string[] | null> {
    return this.connection.finishHints$;
  }

  getWaitedJobs(ids: string[]): Promise<WaitedJobs> {
    return getWaitedJobs(this.db, ids);
  }

  markFinishWaiters(now: number): Promise<void> {
    return markFinishWaiters(this.db, now);
  }
}
