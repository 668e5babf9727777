import { GROUP_LIMITS_TABLE, JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;
const G = GROUP_LIMITS_TABLE;

/**
 * The claim no longer writes `started_at`: a job claimed ahead of a free slot waits in its process, and its start is
 * written when a handler gets it. The triggers that advance the rate windows at the claim (steps 5 and 16) read the
 * claim's time from `NEW.started_at`; they read it from `NEW.updated_at` now, which the claim sets to the same clock
 * reading. Same WHEN, same `UPDATE OF` columns (only the claim texts of limited queues bring them in), same counts.
 */
export const SQLITE_MIGRATION_CLAIMED_AHEAD: SchemaMigration = {
  version: 18,
  name: 'claimed-ahead',
  statements: [
    `DROP TRIGGER IF EXISTS ${T}_rate_window`,
    `CREATE TRIGGER ${T}_rate_window AFTER UPDATE OF run_at ON ${T}
     WHEN OLD.status = 'pending' AND NEW.status = 'running'
     BEGIN
       UPDATE ${Q} SET
         window_count = CASE WHEN window_start + rate_duration > NEW.updated_at THEN window_count + 1 ELSE 1 END,
         window_start = CASE WHEN window_start + rate_duration > NEW.updated_at THEN window_start ELSE NEW.updated_at END
       WHERE queue = NEW.queue AND rate_duration IS NOT NULL;
     END`,
    `DROP TRIGGER IF EXISTS ${T}_group_window`,
    `CREATE TRIGGER ${T}_group_window AFTER UPDATE OF job_group ON ${T}
     WHEN OLD.status = 'pending' AND NEW.status = 'running' AND NEW.job_group IS NOT NULL
     BEGIN
       INSERT INTO ${G} (queue, job_group, window_start, window_count)
         SELECT NEW.queue, NEW.job_group, NEW.updated_at, 1 FROM ${Q} WHERE queue = NEW.queue AND group_rate_duration IS NOT NULL
       ON CONFLICT (queue, job_group) DO UPDATE SET
         window_count = CASE WHEN window_start + (SELECT group_rate_duration FROM ${Q} WHERE queue = excluded.queue) > excluded.window_start
           THEN window_count + 1 ELSE 1 END,
         window_start = CASE WHEN window_start + (SELECT group_rate_duration FROM ${Q} WHERE queue = excluded.queue) > excluded.window_start
           THEN window_start ELSE excluded.window_start END;
     END`,
  ],
};
