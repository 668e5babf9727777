import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { deadLetterInsertSql, deadLetterOriginSql } from '../../shared/dead-letter-copy';
import { PostgresMigration } from './postgres-migration';

/**
 * Throttle and debounce keys, dead letters, snoozes: see the SQLite step of the same name. The dead-letter trigger's
 * WHEN is evaluated without calling the function, so claims and completions do not pay a PL/pgSQL call.
 */
export const POSTGRES_MIGRATION_KEYS_DEAD_LETTERS: PostgresMigration = {
  version: 10,
  name: 'keys-dead-letters',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    const Q = `${s}.${QUEUES_TABLE}`;
    const fn = `${s}.${JOBS_TABLE}_dead_letter`;
    return [
      `ALTER TABLE ${T}
         ADD COLUMN IF NOT EXISTS key_until bigint,
         ADD COLUMN IF NOT EXISTS debounce_key text,
         ADD COLUMN IF NOT EXISTS origin text,
         ADD COLUMN IF NOT EXISTS snoozes integer NOT NULL DEFAULT 0`,
      `ALTER TABLE ${Q} ADD COLUMN IF NOT EXISTS dead_letter text`,
      `CREATE INDEX IF NOT EXISTS ${JOBS_TABLE}_key_window ON ${T} (queue, unique_key, key_until) WHERE key_until IS NOT NULL`,
      `CREATE UNIQUE INDEX IF NOT EXISTS ${JOBS_TABLE}_debounce_key ON ${T} (queue, debounce_key)
       WHERE debounce_key IS NOT NULL AND status = 'pending' AND started_at IS NULL`,
      `CREATE OR REPLACE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $dead$
      BEGIN
        ${deadLetterInsertSql(T, Q, `${deadLetterOriginSql('json_build_object', 'NEW.id::text')}::text`)};
        RETURN NULL;
      END
      $dead$`,
      `DROP TRIGGER IF EXISTS ${JOBS_TABLE}_dead_letter ON ${T}`,
      `CREATE TRIGGER ${JOBS_TABLE}_dead_letter AFTER UPDATE OF status ON ${T} FOR EACH ROW
       WHEN (OLD.status = 'running' AND NEW.status = 'failed')
       EXECUTE PROCEDURE ${fn}()`,
    ];
  },
};
