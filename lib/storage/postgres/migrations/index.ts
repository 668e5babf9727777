import { PostgresMigration } from './postgres-migration';
import { POSTGRES_MIGRATION_1 } from './001-initial.migration';
import { POSTGRES_MIGRATION_2 } from './002-partial-status-index.migration';
import { POSTGRES_MIGRATION_3_PLACEHOLDER } from './003-reserved.migration';
import { POSTGRES_MIGRATION_4 } from './004-events-table.migration';

/** Every PostgreSQL schema step, oldest first. Append only: a released step is never edited. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  POSTGRES_MIGRATION_1,
  POSTGRES_MIGRATION_2,
  POSTGRES_MIGRATION_3_PLACEHOLDER,
  POSTGRES_MIGRATION_4,
];
