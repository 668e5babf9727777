import { Logger } from '@nestjs/common';
import { Observable } from 'rxjs';
import { AttemptRef, ClaimRequest, Completion, JobRecord } from '../../queue-storage.interface';
import { claimJobs } from '../sql/claim.sql';
import { dueBlobRows, failBlobRow, isBlobInJsonError } from '../sql/blob-rows.sql';
import { InvalidStoredDataError } from '../../../errors/invalid-stored-data.error';
import { serializeJobError } from '../../../utils/error.util';
import { appendLog, updateData } from '../sql/job-details.sql';
import { releaseJobs } from '../sql/leases.sql';
import { completeJobs, failJob, markStarted, retryJob, updateProgress } from '../sql/outcomes.sql';
import { SqliteConnection } from '../sqlite-connection';
import { ClaimStorage } from '../../roles/claim-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `ClaimStorage` on SQLite: see the role's interface for each member. */
export class SqliteClaimStorage implements ClaimStorage {
  private readonly db: SqliteConnection;
  private readonly logger: Logger;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
    this.logger = backend.logger;
  }

  get insertHints$(): Observable<void> {
    return this.db.insertHints$;
  }

  async claim(requests: ClaimRequest[], workerId: string, now: number, leaseDuration: number): Promise<JobRecord[]> {
    // A deleted, replaced or corrupted file: claim nothing (said once, by the connection), not an error per round.
    if (this.db.fault) return [];
    let jobs: JobRecord[];
    try {
      jobs = await claimJobs(this.db.background, requests, workerId, now, leaseDuration).catch(async (error: unknown) => {
        // A row another tool wrote with a BLOB where the claim packs JSON fails every claim while it is due: fail
        // that row, then claim again. Checked here, once it happened, so the claim itself pays nothing for it.
        if (!isBlobInJsonError(error) || !(await this.#failBlobRows(requests, now))) throw error;
        return claimJobs(this.db.background, requests, workerId, now, leaseDuration);
      });
    } catch (error) {
      this.db.noteFailure(error);
      throw error;
    }
    if (jobs.length > 0) this.db.written();
    return jobs;
  }

  async completeMany(completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
    if (completions.length === 0) return new Set();
    const completed = await completeJobs(this.db.background, completions, workerId, now);
    this.db.written();
    return completed;
  }

  async markStarted(refs: AttemptRef[], workerId: string): Promise<number> {
    if (refs.length === 0) return 0;
    const marked = await markStarted(this.db.background, refs, workerId);
    if (marked > 0) this.db.written();
    return marked;
  }

  retry(ref: AttemptRef, workerId: string, error: string, runAt: number, now: number): Promise<boolean> {
    return retryJob(this.db.background, ref, workerId, error, runAt, now);
  }

  fail(ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
    return failJob(this.db.background, ref, workerId, error, now);
  }

  updateProgress(ref: AttemptRef, workerId: string, progress: string, now: number): Promise<boolean> {
    return updateProgress(this.db.runner, ref, workerId, progress, now);
  }

  appendLog(ref: AttemptRef, workerId: string, line: string, maxLines: number, now: number): Promise<boolean> {
    return appendLog(this.db.runner, ref, workerId, line, maxLines, now);
  }

  updateData(ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
    return updateData(this.db.runner, ref, workerId, data, now);
  }

  async release(refs: AttemptRef[], workerId: string, now: number): Promise<number> {
    if (refs.length === 0) return 0;
    // Jobs whose handlers ran (aborted at shutdown): their hand-back's run records the start they had.
    await markStarted(this.db.background, refs, workerId);
    return releaseJobs(this.db.background, refs, workerId, now);
  }

  /**
   * Fails, with InvalidStoredDataError, the due rows of the claimed queues that hold a BLOB in a column the claim
   * packs, each logged with its id and queue; whether there was one.
   */
  async #failBlobRows(requests: ClaimRequest[], now: number): Promise<boolean> {
    const rows = await dueBlobRows(this.db.background, [...new Set(requests.map((request) => request.queue))], now);
    for (const row of rows) {
      const message = `Stored column${row.columns.length > 1 ? 's' : ''} ${row.columns.join(', ')} hold${row.columns.length > 1 ? '' : 's'} a BLOB, which this library never writes: the row cannot run`;
      const failed = await failBlobRow(
        this.db.background,
        row.id,
        serializeJobError({ name: InvalidStoredDataError.name, message, attempt: 0 }),
        now,
      );
      if (failed) this.logger.error(`Job ${row.id} (queue ${row.queue}): ${message}; failed it with ${InvalidStoredDataError.name}`);
    }
    return rows.length > 0;
  }
}
