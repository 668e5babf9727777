import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { DEAD_LETTER_ONCE, deadLetterInsertSql, deadLetterOriginSql } from '../../shared/dead-letter-copy';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;

/**
 * The dead-letter trigger off the hot path: fired by statements that set `error` instead of `status`. Every statement
 * that fails a running job for good writes its error (a failed attempt, a lease expired on the last attempt), while
 * the claim and the completion, which set `status` for every job, write none: SQLite no longer runs the trigger's
 * program for each row they touch (5 % of the CPU of a claim and its completion, at the SQL level). Same WHEN, same
 * copy.
 */
export const SQLITE_MIGRATION_DEAD_LETTER_OFF_HOT_PATH: SchemaMigration = {
  version: 15,
  name: 'dead-letter-off-hot-path',
  statements: [
    `DROP TRIGGER IF EXISTS ${T}_dead_letter`,
    `CREATE TRIGGER ${T}_dead_letter AFTER UPDATE OF error ON ${T} FOR EACH ROW
     WHEN OLD.status = 'running' AND NEW.status = 'failed' AND ${DEAD_LETTER_ONCE}
     BEGIN
       ${deadLetterInsertSql(T, Q, deadLetterOriginSql('json_object', 'CAST(NEW.id AS TEXT)'))};
     END`,
  ],
};
