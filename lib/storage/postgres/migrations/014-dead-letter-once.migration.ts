import { JOBS_TABLE } from '../../../table-names.constants';
import { DEAD_LETTER_ONCE } from '../../shared/dead-letter-copy';
import { PostgresMigration } from './postgres-migration';

/**
 * A dead letter is never dead-lettered again (see the SQLite step of the same name): step 10's trigger, recreated
 * with a WHEN that leaves out a job that is itself a dead letter. Its function is unchanged.
 */
export const POSTGRES_MIGRATION_DEAD_LETTER_ONCE: PostgresMigration = {
  version: 14,
  name: 'dead-letter-once',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    const fn = `${s}.${JOBS_TABLE}_dead_letter`;
    return [
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dead_letter ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dead_letter AFTER UPDATE OF status ON ${T} FOR EACH ROW
       WHEN (OLD.status = 'running' AND NEW.status = 'failed' AND ${DEAD_LETTER_ONCE})
       EXECUTE PROCEDURE ${fn}()`,
    ];
  },
};
