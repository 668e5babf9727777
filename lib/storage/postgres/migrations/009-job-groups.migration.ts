import { JOBS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * Job groups (`JobOptions.group`): a nullable column (added without a table rewrite), two indexes of grouped jobs only
 * (see the SQLite step of the same name: the claim's walk per group, and a group's jobs by status), and the count of a
 * queue's running jobs per group on a fresh snapshot. The claim of a queue with a group concurrency locks the queue's
 * row, then counts: VOLATILE, like `_running_count` (step 5), so the count taken after the lock sees the claim that
 * held it; one call per claimed queue returns every group's count.
 */
export const POSTGRES_MIGRATION_JOB_GROUPS: PostgresMigration = {
  version: 9,
  name: 'job-groups',
  statements: (s) => [
    `ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS job_group text`,
    `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_group_claim ON ${s}.${JOBS_TABLE} (queue, job_group, priority DESC, run_at, id)
       WHERE status = 'pending' AND job_group IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_groups ON ${s}.${JOBS_TABLE} (queue, job_group, status) WHERE job_group IS NOT NULL`,
    `CREATE OR REPLACE FUNCTION ${s}.${JOBS_TABLE}_group_running(target text, at bigint) RETURNS TABLE (grp text, n integer)
     LANGUAGE plpgsql VOLATILE AS $fn$
     BEGIN
       RETURN QUERY SELECT j.job_group, count(*)::integer FROM ${s}.${JOBS_TABLE} AS j
         WHERE j.queue = target AND j.status = 'running' AND j.lease_until > at GROUP BY j.job_group;
     END
     $fn$`,
  ],
};
