import { FinishedJobStatus } from '../../../interfaces/job-info.interface';
import { ProcessAnnouncement, OldestDueRow, RetentionRule } from '../../queue-storage.interface';
import { forgetGroupWindows } from '../sql/group-limits.sql';
import { removeFinishedJobs } from '../sql/job-details.sql';
import { announceProcess, endProcess } from '../sql/processes.sql';
import { announceProcessors, processedQueues, unprocessedQueues } from '../sql/processors.sql';
import { applyRetention } from '../sql/retention.sql';
import { SqliteConnection } from '../sqlite-connection';
import { HousekeepingStorage } from '../../roles/housekeeping-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `HousekeepingStorage` on SQLite: see the role's interface for each member. */
export class SqliteHousekeepingStorage implements HousekeepingStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  async removeFinishedJobs(ids: string[], status: 'completed' | 'failed'): Promise<number> {
    if (ids.length === 0) return 0;
    return removeFinishedJobs(this.db.background, ids, status);
  }

  announceProcess(announcement: ProcessAnnouncement, now: number, forgetBefore: number): Promise<void> {
    return announceProcess(this.db.background, announcement, now, forgetBefore);
  }

  endProcess(workerId: string, startedAt: number, now: number): Promise<void> {
    return endProcess(this.db.background, workerId, startedAt, now);
  }

  announceProcessors(queues: string[], until: number, now: number): Promise<void> {
    return announceProcessors(this.db.background, queues, until, now);
  }

  processedQueues(now: number): Promise<string[]> {
    return processedQueues(this.db.runner, now);
  }

  forgetGroupWindows(now: number, limit: number): Promise<number> {
    return forgetGroupWindows(this.db.background, now, limit);
  }

  unprocessedQueues(dueBy: number, now: number): Promise<OldestDueRow[]> {
    return unprocessedQueues(this.db.background, dueBy, now);
  }

  applyRetention(queue: string, status: FinishedJobStatus, rule: RetentionRule, limit: number): Promise<number> {
    return applyRetention(this.db.background, queue, status, rule, limit);
  }
}
