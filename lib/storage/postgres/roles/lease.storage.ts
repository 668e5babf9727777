import { AttemptRef, ExpiredLease, RecoveredJob } from '../../queue-storage.interface';
import { extendLeases, findCancelled, findExpiredLeases, recoverExpiredLease, recoverExpiredLeases } from '../sql/leases.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { LeaseStorage } from '../../roles/lease-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `LeaseStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresLeaseStorage implements LeaseStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  /** A heartbeat leaves out attempts claimed within its last beat (see LeaseKeeper): no statement here waits for a file lock. */
  get skipsFreshLeases(): boolean {
    return true;
  }

  findCancelled(refs: AttemptRef[], workerId: string): Promise<string[]> {
    return findCancelled(this.db, refs, workerId);
  }

  extendLeases(refs: AttemptRef[], workerId: string, leaseDuration: number, now: number): Promise<number> {
    return extendLeases(this.db, refs, workerId, leaseDuration, now);
  }

  recoverExpiredLeases(now: number, jitterWindow: number, skip: readonly string[] = []): Promise<RecoveredJob[]> {
    return recoverExpiredLeases(this.db, now, jitterWindow, skip);
  }

  recoverExpiredLease(id: string, now: number, jitterWindow: number): Promise<RecoveredJob | null> {
    return recoverExpiredLease(this.db, id, now, jitterWindow);
  }

  findExpiredLeases(now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
    return findExpiredLeases(this.db, now, skip);
  }
}
