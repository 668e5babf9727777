import { SchemaMigration } from '../../shared/schema-migration';
import { SQLITE_MIGRATION_1 } from './001-initial.migration';
import { SQLITE_MIGRATION_2 } from './002-finished-index.migration';
import { SQLITE_MIGRATION_3 } from './003-job-names.migration';
import { SQLITE_MIGRATION_FLOWS } from './004-flows.migration';
import { SQLITE_MIGRATION_QUEUE_LIMITS } from './005-queue-limits.migration';
import { SQLITE_MIGRATION_EVENTS } from './006-events-table.migration';
import { SQLITE_MIGRATION_FLOW_FAILURE_WALK } from './007-flow-failure-walk.migration';
import { SQLITE_MIGRATION_KEYS_DEAD_LETTERS } from './010-keys-dead-letters.migration';

/**
 * BRANCH ONLY (feat/keys-deadletter-snooze): steps 8 and 9 are being written on other branches; these empty stand-ins
 * keep the numbering gapless until the merge puts the real steps here. Never released.
 */
const RESERVED_8: SchemaMigration = { version: 8, name: 'reserved-8', statements: [] };
const RESERVED_9: SchemaMigration = { version: 9, name: 'reserved-9', statements: [] };

/** Every SQLite schema step, oldest first. Append only: a released step is never edited. */
export const SQLITE_MIGRATIONS: readonly SchemaMigration[] = [
  SQLITE_MIGRATION_1,
  SQLITE_MIGRATION_2,
  SQLITE_MIGRATION_3,
  SQLITE_MIGRATION_FLOWS,
  SQLITE_MIGRATION_QUEUE_LIMITS,
  SQLITE_MIGRATION_EVENTS,
  SQLITE_MIGRATION_FLOW_FAILURE_WALK,
  RESERVED_8,
  RESERVED_9,
  SQLITE_MIGRATION_KEYS_DEAD_LETTERS,
];
