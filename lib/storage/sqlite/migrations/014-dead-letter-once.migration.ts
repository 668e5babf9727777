import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { DEAD_LETTER_ONCE, deadLetterInsertSql, deadLetterOriginSql } from '../../shared/dead-letter-copy';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;

/**
 * A dead letter is never dead-lettered again: step 10's trigger, recreated to copy only a job that is not itself a
 * dead letter (`origin` is null). With queues that dead-letter to each other (A to B, B to A, even declared by
 * different processes) one poison job otherwise went round for ever, adding a failed row at every turn.
 */
export const SQLITE_MIGRATION_DEAD_LETTER_ONCE: SchemaMigration = {
  version: 14,
  name: 'dead-letter-once',
  statements: [
    `DROP TRIGGER IF EXISTS ${T}_dead_letter`,
    `CREATE TRIGGER ${T}_dead_letter AFTER UPDATE OF status ON ${T} FOR EACH ROW
     WHEN OLD.status = 'running' AND NEW.status = 'failed' AND ${DEAD_LETTER_ONCE}
     BEGIN
       ${deadLetterInsertSql(T, Q, deadLetterOriginSql('json_object', 'CAST(NEW.id AS TEXT)'))};
     END`,
  ],
};
