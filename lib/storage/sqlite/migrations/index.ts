import { SchemaMigration } from '../../shared/schema-migration';
import { SQLITE_MIGRATION_1 } from './001-initial.migration';
import { SQLITE_MIGRATION_2 } from './002-finished-index.migration';
import { SQLITE_MIGRATION_3 } from './003-job-names.migration';
import { SQLITE_MIGRATION_FLOWS } from './004-flows.migration';
import { SQLITE_MIGRATION_QUEUE_LIMITS } from './005-queue-limits.migration';
import { SQLITE_MIGRATION_EVENTS } from './006-events-table.migration';
import { SQLITE_MIGRATION_FLOW_FAILURE_WALK } from './007-flow-failure-walk.migration';
import { SQLITE_MIGRATION_LEAN_JOB_ROW } from './008-lean-job-row.migration';
import { SQLITE_MIGRATION_JOB_GROUPS } from './009-job-groups.migration';
import { SQLITE_MIGRATION_KEYS_DEAD_LETTERS } from './010-keys-dead-letters.migration';
import { SQLITE_MIGRATION_TRACE_CONTEXT } from './011-trace-context.migration';
import { SQLITE_MIGRATION_RUN_HISTORY } from './012-run-history.migration';
import { SQLITE_MIGRATION_PROCESSES } from './013-processes.migration';
import { SQLITE_MIGRATION_DEAD_LETTER_ONCE } from './014-dead-letter-once.migration';
import { SQLITE_MIGRATION_DEAD_LETTER_OFF_HOT_PATH } from './015-dead-letter-off-hot-path.migration';
import { SQLITE_MIGRATION_GROUP_LIMITS } from './016-group-limits.migration';
import { SQLITE_MIGRATION_DEPENDENCIES } from './017-dependencies.migration';
import { SQLITE_MIGRATION_CLAIMED_AHEAD } from './018-claimed-ahead.migration';
import { SQLITE_MIGRATION_RUN_BATCH } from './019-run-batch.migration';
/** Every SQLite schema step, oldest first. Append only: a released step is never edited. */
export const SQLITE_MIGRATIONS: readonly SchemaMigration[] = [
  SQLITE_MIGRATION_1,
  SQLITE_MIGRATION_2,
  SQLITE_MIGRATION_3,
  SQLITE_MIGRATION_FLOWS,
  SQLITE_MIGRATION_QUEUE_LIMITS,
  SQLITE_MIGRATION_EVENTS,
  SQLITE_MIGRATION_FLOW_FAILURE_WALK,
  SQLITE_MIGRATION_LEAN_JOB_ROW,
  SQLITE_MIGRATION_JOB_GROUPS,
  SQLITE_MIGRATION_KEYS_DEAD_LETTERS,
  SQLITE_MIGRATION_TRACE_CONTEXT,
  SQLITE_MIGRATION_RUN_HISTORY,
  SQLITE_MIGRATION_PROCESSES,
  SQLITE_MIGRATION_DEAD_LETTER_ONCE,
  SQLITE_MIGRATION_DEAD_LETTER_OFF_HOT_PATH,
  SQLITE_MIGRATION_GROUP_LIMITS,
  SQLITE_MIGRATION_DEPENDENCIES,
  SQLITE_MIGRATION_CLAIMED_AHEAD,
  SQLITE_MIGRATION_RUN_BATCH,
];
