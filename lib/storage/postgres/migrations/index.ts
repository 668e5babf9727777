import { PostgresMigration } from './postgres-migration';
import { POSTGRES_MIGRATION_1 } from './001-initial.migration';
import { POSTGRES_MIGRATION_2 } from './002-partial-status-index.migration';
import { POSTGRES_MIGRATION_3 } from './003-job-names.migration';
import { POSTGRES_MIGRATION_FLOWS } from './004-flows.migration';

/** Every PostgreSQL schema step, oldest first. Append only: a released step is never edited. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  POSTGRES_MIGRATION_1,
  POSTGRES_MIGRATION_2,
  POSTGRES_MIGRATION_3,
  POSTGRES_MIGRATION_FLOWS,
];
