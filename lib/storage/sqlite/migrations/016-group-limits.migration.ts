import { GROUP_LIMITS_TABLE, JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;
const G = GROUP_LIMITS_TABLE;

/**
 * Rate limits per group (`groupLimiter`) and a GroupRateLimitError's pause of one group. The limiter is declared on the
 * queue's row beside the queue-wide one (group_rate_max jobs per group_rate_duration ms); each group's fixed window
 * and pause live in a table of their own, one row per (queue, group), so a queue with thousands of groups keeps one
 * small row per group that ran lately, never a column per group, and rows of idle groups can be deleted.
 *
 * As with the queue-wide window (step 5), the claim is an UPDATE of the jobs table and SQLite's UPDATE writes one
 * table: the window is advanced by a trigger, in the same statement, under the same write lock. It watches
 * `job_group`, which no statement but the claim of a queue with a group limiter assigns (`job_group = job_group`), so
 * every other claim leaves it out of its program. WITHOUT ROWID: every statement reaches a row by its key.
 */
export const SQLITE_MIGRATION_GROUP_LIMITS: SchemaMigration = {
  version: 16,
  name: 'group-limits',
  statements: [
    `ALTER TABLE ${Q} ADD COLUMN group_rate_max INTEGER`,
    `ALTER TABLE ${Q} ADD COLUMN group_rate_duration INTEGER`,
    `CREATE TABLE IF NOT EXISTS ${G} (
    queue         TEXT    NOT NULL,
    job_group     TEXT    NOT NULL,
    window_start  INTEGER NOT NULL DEFAULT 0,
    window_count  INTEGER NOT NULL DEFAULT 0,
    limited_until INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (queue, job_group)
  ) WITHOUT ROWID`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_group_window AFTER UPDATE OF job_group ON ${T}
     WHEN OLD.status = 'pending' AND NEW.status = 'running' AND NEW.job_group IS NOT NULL
     BEGIN
       INSERT INTO ${G} (queue, job_group, window_start, window_count)
         SELECT NEW.queue, NEW.job_group, NEW.started_at, 1 FROM ${Q} WHERE queue = NEW.queue AND group_rate_duration IS NOT NULL
       ON CONFLICT (queue, job_group) DO UPDATE SET
         window_count = CASE WHEN window_start + (SELECT group_rate_duration FROM ${Q} WHERE queue = excluded.queue) > excluded.window_start
           THEN window_count + 1 ELSE 1 END,
         window_start = CASE WHEN window_start + (SELECT group_rate_duration FROM ${Q} WHERE queue = excluded.queue) > excluded.window_start
           THEN window_start ELSE excluded.window_start END;
     END`,
  ],
};
