import { JOBS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * The size of the batch handler call that ran a job's current attempt (see the SQLite step of the same name). A
 * nullable column without a default: PostgreSQL adds it without rewriting the table, and existing rows read NULL.
 */
export const POSTGRES_MIGRATION_RUN_BATCH: PostgresMigration = {
  version: 19,
  name: 'run-batch',
  statements: (s) => [`ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS run_batch integer`],
};
