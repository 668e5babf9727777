import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;

/**
 * Rate limits and rate-limit pauses, shared by every process through the queues table: the limiter a processor
 * declares (rate_max jobs per rate_duration ms), the current fixed window (window_start, window_count), and
 * limited_until, set when a handler throws RateLimitError.
 *
 * SQLite's UPDATE writes one table, so the claim (an UPDATE of the jobs table) counts its rate-limited jobs through a
 * trigger, in the same statement. The trigger watches run_at, a column the plain claim never sets: SQLite leaves a
 * trigger out of a statement's program when none of its `UPDATE OF` columns is assigned, so only the claim text for
 * rate-limited queues (which assigns `run_at = run_at`) pays for it. Only a claim moves a job from pending to running.
 *
 * SQLite has no `ADD COLUMN IF NOT EXISTS`: unlike the earlier steps, these statements fail when run by hand a second
 * time (the version recorded with them keeps the library from doing so).
 */
export const SQLITE_MIGRATION_QUEUE_LIMITS: SchemaMigration = {
  version: 5,
  name: 'queue-limits',
  statements: [
    `ALTER TABLE ${Q} ADD COLUMN rate_max INTEGER`,
    `ALTER TABLE ${Q} ADD COLUMN rate_duration INTEGER`,
    `ALTER TABLE ${Q} ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE ${Q} ADD COLUMN window_count INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE ${Q} ADD COLUMN limited_until INTEGER NOT NULL DEFAULT 0`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_rate_window AFTER UPDATE OF run_at ON ${T}
     WHEN OLD.status = 'pending' AND NEW.status = 'running'
     BEGIN
       UPDATE ${Q} SET
         window_count = CASE WHEN window_start + rate_duration > NEW.started_at THEN window_count + 1 ELSE 1 END,
         window_start = CASE WHEN window_start + rate_duration > NEW.started_at THEN window_start ELSE NEW.started_at END
       WHERE queue = NEW.queue AND rate_duration IS NOT NULL;
     END`,
  ],
};
