import { JOBS_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;

/**
 * Job groups (`JobOptions.group`): the column, nullable without a default (SQLite adds it without rewriting the
 * table; existing jobs read as in no group), and two indexes that hold grouped jobs only, so a queue without groups
 * writes no entry in either:
 * - `_group_claim`, the claim's walk per group, in the claim's order; its leading (queue, job_group) also lets the
 *   claim list a queue's groups with pending jobs by one seek each (a loose index scan);
 * - `_groups`, a group's jobs by status: a group's counts and listings, and its running jobs.
 */
export const SQLITE_MIGRATION_JOB_GROUPS: SchemaMigration = {
  version: 9,
  name: 'job-groups',
  statements: [
    `ALTER TABLE ${T} ADD COLUMN job_group TEXT`,
    `CREATE INDEX IF NOT EXISTS ${T}_group_claim ON ${T} (queue, job_group, priority DESC, run_at, id)
     WHERE status = 'pending' AND job_group IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS ${T}_groups ON ${T} (queue, job_group, status) WHERE job_group IS NOT NULL`,
  ],
};
