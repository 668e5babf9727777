import { PostgresMigration } from './postgres-migration';
import { POSTGRES_MIGRATION_1 } from './001-initial.migration';
import { POSTGRES_MIGRATION_2 } from './002-partial-status-index.migration';
import { POSTGRES_MIGRATION_3 } from './003-job-names.migration';
import { POSTGRES_MIGRATION_FLOWS } from './004-flows.migration';
import { POSTGRES_MIGRATION_QUEUE_LIMITS } from './005-queue-limits.migration';
import { POSTGRES_MIGRATION_EVENTS } from './006-events-table.migration';
import { POSTGRES_MIGRATION_FLOW_FAILURE_WALK } from './007-flow-failure-walk.migration';
import { POSTGRES_MIGRATION_LEAN_JOB_ROW } from './008-lean-job-row.migration';
import { POSTGRES_MIGRATION_JOB_GROUPS } from './009-job-groups.migration';
import { POSTGRES_MIGRATION_KEYS_DEAD_LETTERS } from './010-keys-dead-letters.migration';
import { POSTGRES_MIGRATION_TRACE_CONTEXT } from './011-trace-context.migration';
import { POSTGRES_MIGRATION_RUN_HISTORY } from './012-run-history.migration';
import { POSTGRES_MIGRATION_PROCESSES } from './013-processes.migration';
import { POSTGRES_MIGRATION_DEAD_LETTER_ONCE } from './014-dead-letter-once.migration';
import { POSTGRES_MIGRATION_DEAD_LETTER_OFF_HOT_PATH } from './015-dead-letter-off-hot-path.migration';
import { POSTGRES_MIGRATION_GROUP_LIMITS } from './016-group-limits.migration';
import { POSTGRES_MIGRATION_DEPENDENCIES } from './017-dependencies.migration';
import { POSTGRES_MIGRATION_CLAIMED_AHEAD } from './018-claimed-ahead.migration';
import { POSTGRES_MIGRATION_RUN_BATCH } from './019-run-batch.migration';
/** Every PostgreSQL schema step, oldest first. Append only: a released step is never edited. */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  POSTGRES_MIGRATION_1,
  POSTGRES_MIGRATION_2,
  POSTGRES_MIGRATION_3,
  POSTGRES_MIGRATION_FLOWS,
  POSTGRES_MIGRATION_QUEUE_LIMITS,
  POSTGRES_MIGRATION_EVENTS,
  POSTGRES_MIGRATION_FLOW_FAILURE_WALK,
  POSTGRES_MIGRATION_LEAN_JOB_ROW,
  POSTGRES_MIGRATION_JOB_GROUPS,
  POSTGRES_MIGRATION_KEYS_DEAD_LETTERS,
  POSTGRES_MIGRATION_TRACE_CONTEXT,
  POSTGRES_MIGRATION_RUN_HISTORY,
  POSTGRES_MIGRATION_PROCESSES,
  POSTGRES_MIGRATION_DEAD_LETTER_ONCE,
  POSTGRES_MIGRATION_DEAD_LETTER_OFF_HOT_PATH,
  POSTGRES_MIGRATION_GROUP_LIMITS,
  POSTGRES_MIGRATION_DEPENDENCIES,
  POSTGRES_MIGRATION_CLAIMED_AHEAD,
  POSTGRES_MIGRATION_RUN_BATCH,
];
