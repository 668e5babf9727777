import { JOBS_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

/**
 * A job's run history: a JSON array of the attempts that ended other than by completing (failed,
 * retried, lease expired, snoozed, handed back, rate limited), each `{attempt, startedAt, endedAt, owner, outcome}`,
 * the newest 10 (see storage/shared/run-history.ts). Written only by the statements that end such an attempt, in the
 * same statement: a job that completes at its first attempt never writes it. Nullable without a default: SQLite adds
 * it without rewriting the table, and jobs from before read NULL (no history). Never indexed, never filtered on.
 */
export const SQLITE_MIGRATION_RUN_HISTORY: SchemaMigration = {
  version: 12,
  name: 'run-history',
  statements: [`ALTER TABLE ${JOBS_TABLE} ADD COLUMN runs TEXT`],
};
