import { AttemptRef, ExpiredLease, RecoveredJob } from '../../queue-storage.interface';
import { extendLeases, findCancelled, findExpiredLeases, recoverExpiredLease, recoverExpiredLeases } from '../sql/leases.sql';
import { SqliteConnection } from '../sqlite-connection';
import { LeaseStorage } from '../../roles/lease-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `LeaseStorage` on SQLite: see the role's interface for each member. */
export class SqliteLeaseStorage implements LeaseStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  async findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    if (refs.length === 0) return [];
    return findCancelled(this.db.background, refs, workerId);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    return extendLeases(this.db.background, refs, workerId, leaseDuration, now);
  }

  recoverExpiredLeases(now: number, jitterWindow: number, skip: readonly string[] = []): Promise<RecoveredJob[]> {
    return recoverExpiredLeases(this.db.background, now, jitterWindow, skip);
  }

  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null> {
    return recoverExpiredLease(this.db.background, id, now, jitterWindow);
  }

  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
    return findExpiredLeases(this.db.background, now, skip);
  }
}
