import { JOBS_TABLE } from '../../../table-names.constants';
import { DEAD_LETTER_ONCE } from '../../shared/dead-letter-copy';
import { PostgresMigration } from './postgres-migration';

/**
 * The dead-letter trigger off the hot path (see the SQLite step of the same name): fired by `UPDATE OF error`, which
 * the statements that fail a running job for good set and the claim and the completion do not, so PostgreSQL no
 * longer evaluates its WHEN for every row they touch. Its function and WHEN are unchanged.
 */
export const POSTGRES_MIGRATION_DEAD_LETTER_OFF_HOT_PATH: PostgresMigration = {
  version: 15,
  name: 'dead-letter-off-hot-path',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    const fn = `${s}.${JOBS_TABLE}_dead_letter`;
    return [
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dead_letter ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dead_letter AFTER UPDATE OF error ON ${T} FOR EACH ROW
       WHEN (OLD.status = 'running' AND NEW.status = 'failed' AND ${DEAD_LETTER_ONCE})
       EXECUTE PROCEDURE ${fn}()`,
    ];
  },
};
