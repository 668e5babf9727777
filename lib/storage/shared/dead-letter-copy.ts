/**
 * What a dead letter carries over from the job that failed for good, in one place: the dead-letter triggers of both
 * backends (schema step 10) read it; the group (step 9) travels too. A field the dead letter should keep is one line
 * of `DEAD_LETTER_COPIED_COLUMNS`.
 */

/**
 * Columns copied as they are from the failed job (`NEW` in the trigger) onto its dead letter: its data, name and run
 * options. Redrive copies nothing back: it turns the dead letter's own row, in place, into the fresh job of its origin
 * queue (`dead-letters.sql.ts` of each backend), so these columns stay as copied and a redriven job runs as the
 * original did.
 */
export const DEAD_LETTER_COPIED_COLUMNS: readonly string[] = [
  'data',
  'name',
  'priority',
  'max_attempts',
  'backoff',
  'timeout_ms',
  'job_group',
];

/**
 * The condition, on `NEW`, of the dead-letter triggers from schema step 14: a job that is itself a dead letter (it has
 * an origin) fails for good where it is, never copied further, so queues that dead-letter to each other cannot pass a
 * poison job round for ever. Redrive clears the origin: a redriven job dead-letters again like any other.
 */
export const DEAD_LETTER_ONCE = 'NEW.origin IS NULL';

/**
 * The dead letter's `origin`: a JSON object with the queue and id the job came from and its last error (the stored
 * error text, kept as a string so a row whose error is not JSON still fails, and still dead-letters).
 * `jsonObject` is the backend's function: `json_object` (SQLite) or `json_build_object` (PostgreSQL).
 */
export function deadLetterOriginSql(jsonObject: 'json_object' | 'json_build_object', idAsText: string): string {
  return `${jsonObject}('queue', NEW.queue, 'jobId', ${idAsText}, 'error', NEW.error)`;
}

/** The INSERT of a trigger that dead-letters `NEW` into its queue's `dead_letter` queue (none when it has none). */
export function deadLetterInsertSql(jobs: string, queues: string, origin: string): string {
  const copied = DEAD_LETTER_COPIED_COLUMNS;
  return `INSERT INTO ${jobs} (queue, status, run_at, attempts, ${copied.join(', ')}, origin, created_at, updated_at)
         SELECT q.dead_letter, 'pending', NEW.updated_at, 0, ${copied.map((column) => `NEW.${column}`).join(', ')}, ${origin},
           NEW.updated_at, NEW.updated_at
         FROM ${queues} AS q WHERE q.queue = NEW.queue AND q.dead_letter IS NOT NULL`;
}
