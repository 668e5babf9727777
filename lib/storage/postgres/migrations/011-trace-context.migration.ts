import { JOBS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * The W3C trace context a job was added under (see the SQLite step of the same name). A nullable column without a
 * default: PostgreSQL adds it without rewriting the table, and existing rows read NULL.
 */
export const POSTGRES_MIGRATION_TRACE_CONTEXT: PostgresMigration = {
  version: 11,
  name: 'trace-context',
  statements: (s) => [`ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS trace_context text`],
};
