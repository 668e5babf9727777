import { JOBS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * A job's run history (see the SQLite step of the same name). A nullable text column without a default, like `logs`:
 * PostgreSQL adds it without rewriting the table, and existing rows read NULL.
 */
export const POSTGRES_MIGRATION_RUN_HISTORY: PostgresMigration = {
  version: 12,
  name: 'run-history',
  statements: (s) => [`ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS runs text`],
};
