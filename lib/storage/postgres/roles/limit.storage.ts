import { AttemptRef, QueueLimiterRecord, StoredQueueLimits } from '../../queue-storage.interface';
import { declareLimits, limitedUntil, pauseUntil, storedLimits } from '../sql/limits.sql';
import { groupOpensAt, pauseGroupUntil } from '../sql/group-limits.sql';
import { releaseJobs } from '../sql/leases.sql';
import { markStarted } from '../sql/outcomes.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { LimitStorage } from '../../roles/limit-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `LimitStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresLimitStorage implements LimitStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.db = backend.db;
  }

  declareLimits(limiters: QueueLimiterRecord[], now: number): Promise<void> {
    return declareLimits(this.db, limiters, now);
  }

  async rateLimit(queue: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean> {
    // The pause first: a crash before the hand-back leaves the job running until its lease expires, never claimable
    // again while the queue should be paused.
    await pauseUntil(this.db, queue, until, now);
    // Recorded in the job's run history as rate limited, not as a hand-back, from the start its handler had.
    await markStarted(this.db, [ref], workerId);
    return (await releaseJobs(this.db, [ref], workerId, now, 'rate-limited')) > 0;
  }

  async groupRateLimit(queue: string, group: string, ref: AttemptRef, workerId: string, until: number, now: number): Promise<boolean> {
    // The pause first, as for a queue's: a crash before the hand-back never leaves the job claimable during it.
    await pauseGroupUntil(this.db, queue, group, until);
    await markStarted(this.db, [ref], workerId);
    return (await releaseJobs(this.db, [ref], workerId, now, 'rate-limited')) > 0;
  }

  groupOpensAt(queue: string, now: number): Promise<number | null> {
    return groupOpensAt(this.db, queue, now);
  }

  limitedUntil(queues: string[], now: number): Promise<Map<string, number>> {
    return limitedUntil(this.db, queues, now);
  }

  storedLimits(queue: string, now: number): Promise<StoredQueueLimits | null> {
    return storedLimits(this.db, queue, now);
  }
}
