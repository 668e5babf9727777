import { AttemptRef } from '../../queue-storage.interface';
import { snoozeJob } from '../sql/snooze.sql';
import { MAX_JOB_LOG_LINES } from '../../../utils/job-logs.util';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { SnoozeStorage } from '../../roles/snooze-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `SnoozeStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresSnoozeStorage implements SnoozeStorage {
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
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
    return snoozeJob(this.db, ref, workerId, runAt, delay, MAX_JOB_LOG_LINES, maxSnoozes, now);
  }
}
