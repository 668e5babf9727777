import { Observable } from 'rxjs';
import { AttemptRef, ClaimRequest, Completion, JobRecord } from '../../queue-storage.interface';
import { PostgresConnection } from '../postgres-connection';
import { claimJobs } from '../sql/claim.sql';
import { appendLog, updateData } from '../sql/job-details.sql';
import { releaseJobs } from '../sql/leases.sql';
import { completeJobs, failJob, markStarted, retryJob, updateProgress } from '../sql/outcomes.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { ClaimStorage } from '../../roles/claim-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `ClaimStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresClaimStorage implements ClaimStorage {
  private readonly connection: PostgresConnection;
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.connection = backend.connection;
    this.db = backend.db;
  }

  get insertHints$(): Observable<void> {
    return this.connection.insertHints$;
  }

  claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    return claimJobs(this.db, requests, workerId, now, leaseDuration);
  }

  completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    return completeJobs(this.db, completions, workerId, now);
  }

  markStarted(refs: AttemptRef[], workerId: string): Promise<number> {
    return markStarted(this.db, refs, workerId);
  }

  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return retryJob(this.db, ref, workerId, error, runAt, now);
  }

  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return failJob(this.db, ref, workerId, error, now);
  }

  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    return updateProgress(this.db, ref, workerId, progress, now);
  }

  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean> {
    return appendLog(this.db, ref, workerId, line, maxLines, now);
  }

  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
    return updateData(this.db, ref, workerId, data, now);
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    // Jobs whose handlers ran (aborted at shutdown): their hand-back's run records the start they had.
    await markStarted(this.db, refs, workerId);
    return releaseJobs(this.db, refs, workerId, now);
  }
}
