import { GROUP_LIMITS_TABLE, JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * Rate limits per group and a GroupRateLimitError's pause of one group (see the SQLite step of the same name): the
 * group limiter on the queue's row, each group's window and pause in a table of their own, and the function the claim
 * reads them with. The claim of a queue with a group limiter locks the queue's row, then reads its groups' windows:
 * VOLATILE, like `_group_running` (step 9), so the read taken after the lock sees the windows the claim that held it
 * advanced, and the rows it inserted. It returns only the groups a window or a pause holds back now.
 */
export const POSTGRES_MIGRATION_GROUP_LIMITS: PostgresMigration = {
  version: 16,
  name: 'group-limits',
  statements: (s) => [
    `ALTER TABLE ${s}.${QUEUES_TABLE}
       ADD COLUMN IF NOT EXISTS group_rate_max integer,
       ADD COLUMN IF NOT EXISTS group_rate_duration bigint`,
    `CREATE TABLE IF NOT EXISTS ${s}.${GROUP_LIMITS_TABLE} (
    queue         text    NOT NULL,
    job_group     text    NOT NULL,
    window_start  bigint  NOT NULL DEFAULT 0,
    window_count  integer NOT NULL DEFAULT 0,
    limited_until bigint  NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, job_group)
  )`,
    `CREATE OR REPLACE FUNCTION ${s}.${JOBS_TABLE}_group_windows(target text, at bigint)
       RETURNS TABLE (grp text, used integer, paused boolean)
     LANGUAGE plpgsql VOLATILE AS $fn$
     BEGIN
       RETURN QUERY SELECT g.job_group,
           CASE WHEN g.window_start + coalesce(q.group_rate_duration, 0) > at THEN g.window_count ELSE 0 END,
           g.limited_until > at
         FROM ${s}.${GROUP_LIMITS_TABLE} AS g LEFT JOIN ${s}.${QUEUES_TABLE} AS q ON q.queue = g.queue
         WHERE g.queue = target AND (g.limited_until > at OR g.window_start + coalesce(q.group_rate_duration, 0) > at);
     END
     $fn$`,
  ],
};
