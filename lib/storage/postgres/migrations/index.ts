import { PostgresMigration } from './postgres-migration';
import { POSTGRES_MIGRATION_1 } from './001-initial.migration';
import { POSTGRES_MIGRATION_2 } from './002-partial-status-index.migration';
import { POSTGRES_MIGRATION_3 } from './003-job-names.migration';
import { POSTGRES_MIGRATION_FLOWS } from './004-flows.migration';
import { POSTGRES_MIGRATION_QUEUE_LIMITS } from './005-queue-limits.migration';
import { POSTGRES_MIGRATION_EVENTS } from './006-events-table.migration';
import { POSTGRES_MIGRATION_FLOW_FAILURE_WALK } from './007-flow-failure-walk.migration';
import { POSTGRES_MIGRATION_KEYS_DEAD_LETTERS } from './010-keys-dead-letters.migration';

/**
 * BRANCH ONLY (feat/keys-deadletter-snooze): steps 8 and 9 are being written on other branches; these empty stand-ins
 * keep the numbering gapless until the merge puts the real steps here. Never released.
 */
const RESERVED_8: PostgresMigration = { version: 8, name: 'reserved-8', statements: () => ['NULL'] };
const RESERVED_9: PostgresMigration = { version: 9, name: 'reserved-9', statements: () => ['NULL'] };

/** Every PostgreSQL schema step, oldest first. Append only: a released step is never edited. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  POSTGRES_MIGRATION_1,
  POSTGRES_MIGRATION_2,
  POSTGRES_MIGRATION_3,
  POSTGRES_MIGRATION_FLOWS,
  POSTGRES_MIGRATION_QUEUE_LIMITS,
  POSTGRES_MIGRATION_EVENTS,
  POSTGRES_MIGRATION_FLOW_FAILURE_WALK,
  RESERVED_8,
  RESERVED_9,
  POSTGRES_MIGRATION_KEYS_DEAD_LETTERS,
];
