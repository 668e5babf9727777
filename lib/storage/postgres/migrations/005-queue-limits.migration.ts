import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * Rate limits, rate-limit pauses and global concurrency, shared by every process through the queues table: the
 * limiter a processor declares (rate_max jobs per rate_duration ms), the current fixed window (window_start,
 * window_count), and limited_until, set when a handler throws RateLimitError.
 *
 * The claim of a limited queue locks its queues row, then counts the queue's running jobs with this function.
 * Under READ COMMITTED a statement reads one snapshot taken when it started, which misses jobs claimed by a claim
 * that committed while this one waited for the lock; a VOLATILE function takes a fresh snapshot for each query it
 * runs, so the count it returns after the lock includes them. PL/pgSQL, so the planner never inlines it.
 */
export const POSTGRES_MIGRATION_QUEUE_LIMITS: PostgresMigration = {
  version: 5,
  name: 'queue-limits',
  statements: (s) => [
    `ALTER TABLE ${s}.${QUEUES_TABLE}
       ADD COLUMN IF NOT EXISTS rate_max integer,
       ADD COLUMN IF NOT EXISTS rate_duration bigint,
       ADD COLUMN IF NOT EXISTS window_start bigint NOT NULL DEFAULT 0,
       ADD COLUMN IF NOT EXISTS window_count integer NOT NULL DEFAULT 0,
       ADD COLUMN IF NOT EXISTS limited_until bigint NOT NULL DEFAULT 0`,
    `CREATE OR REPLACE FUNCTION ${s}.${JOBS_TABLE}_running_count(target text, at bigint) RETURNS integer
     LANGUAGE plpgsql VOLATILE AS $fn$
     BEGIN
       RETURN (SELECT count(*) FROM ${s}.${JOBS_TABLE} WHERE queue = target AND status = 'running' AND lease_until > at);
     END
     $fn$`,
  ],
};
