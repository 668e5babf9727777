import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { deadLetterInsertSql, deadLetterOriginSql } from '../../shared/dead-letter-copy';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;

/**
 * Throttle and debounce keys, dead letters, snoozes.
 * - `key_until`: a throttled job's key stays taken until then, whatever its status; `jobs_key_window` finds it.
 * - `debounce_key`: a debounced job's key, apart from `unique_key` so a running debounced job does not keep the next
 *   one out: `jobs_debounce_key` allows one per key among jobs that never started (a started one is not replaced).
 * - `origin`: on a dead letter, where it came from and its last error (JSON). `queues.dead_letter`: where the jobs of
 *   a queue that fail for good are also enqueued, by the trigger below, in the statement that failed them: the
 *   worker's failure, a timeout, lease recovery alike.
 * - `snoozes`: how many times the handler snoozed the job.
 *
 * SQLite has no `ADD COLUMN IF NOT EXISTS`: these statements fail when run by hand a second time.
 */
export const SQLITE_MIGRATION_KEYS_DEAD_LETTERS: SchemaMigration = {
  version: 10,
  name: 'keys-dead-letters',
  statements: [
    `ALTER TABLE ${T} ADD COLUMN key_until INTEGER`,
    `ALTER TABLE ${T} ADD COLUMN debounce_key TEXT`,
    `ALTER TABLE ${T} ADD COLUMN origin TEXT`,
    `ALTER TABLE ${T} ADD COLUMN snoozes INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE ${Q} ADD COLUMN dead_letter TEXT`,
    `CREATE INDEX IF NOT EXISTS ${T}_key_window ON ${T} (queue, unique_key, key_until) WHERE key_until IS NOT NULL`,
    `CREATE UNIQUE INDEX IF NOT EXISTS ${T}_debounce_key ON ${T} (queue, debounce_key)
     WHERE debounce_key IS NOT NULL AND status = 'pending' AND started_at IS NULL`,
    `CREATE TRIGGER IF NOT EXISTS ${T}_dead_letter AFTER UPDATE OF status ON ${T} FOR EACH ROW
     WHEN OLD.status = 'running' AND NEW.status = 'failed'
     BEGIN
       ${deadLetterInsertSql(T, Q, deadLetterOriginSql('json_object', 'CAST(NEW.id AS TEXT)'))};
     END`,
  ],
};
