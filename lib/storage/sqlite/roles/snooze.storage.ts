import { AttemptRef } from '../../queue-storage.interface';
import { snoozeJob } from '../sql/snooze.sql';
import { MAX_JOB_LOG_LINES } from '../../../utils/job-logs.util';
import { SqliteConnection } from '../sqlite-connection';
import { SnoozeStorage } from '../../roles/snooze-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `SnoozeStorage` on SQLite: see the role's interface for each member. */
export class SqliteSnoozeStorage implements SnoozeStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  snooze(
    ref: AttemptRef,
    workerId: string,
    snooze: { runAt: number; delay: number },
    maxSnoozes: number,
    now: number,
  ): Promise<'snoozed' | 'exhausted' | 'lost'> {
    const { runAt, delay } = snooze;
    return snoozeJob(this.db.background, ref, workerId, runAt, delay, MAX_JOB_LOG_LINES, maxSnoozes, now);
  }
}
