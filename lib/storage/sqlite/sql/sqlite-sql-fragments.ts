/**
 * Names and fragments the SQLite statements of this folder share. Every statement of `sql/` uses positional `?`
 * parameters only (both node-sqlite3 and better-sqlite3 bind them), bound right beside its SQL. Statements that
 * return rows through RETURNING start with a comment: TypeORM's sqlite runner sends SQL that starts with
 * "UPDATE "/"INSERT " to run(), which drops rows.
 */
import { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../../sqlite-queue.constants';
import { NewJobRecord } from '../../queue-storage.interface';

/** The jobs table. */
export const T = JOBS_TABLE;
/** The queues (pause state) table. */
export const Q = QUEUES_TABLE;
/** The schedules table. */
export const S = SCHEDULES_TABLE;

/**
 * A WITH RECURSIVE item naming the queues with pending jobs, `pending_queue(queue)` (ending in one NULL row), by a
 * loose index scan of the claim index: one seek per queue. SQLite does not skip through an index for DISTINCT or
 * GROUP BY, and a GROUP BY over the pending rows reads all of them (120-130 ms with a million-job backlog, on the
 * connection every claim waits for).
 */
export const PENDING_QUEUES = `pending_queue(queue) AS (
    SELECT (SELECT MIN(queue) FROM ${T} WHERE status = 'pending')
    UNION ALL
    SELECT (SELECT MIN(queue) FROM ${T} WHERE status = 'pending' AND queue > pending_queue.queue)
    FROM pending_queue WHERE pending_queue.queue IS NOT NULL
  )`;

/**
 * A WITH RECURSIVE item after PENDING_QUEUES: per queue, each priority its pending jobs have,
 * `pending_level(queue, priority)` (each queue's list ending in a NULL priority), one seek each, the same way.
 */
export const PENDING_LEVELS = `pending_level(queue, priority) AS (
    SELECT queue, (SELECT MAX(priority) FROM ${T} WHERE status = 'pending' AND queue = pending_queue.queue)
    FROM pending_queue WHERE queue IS NOT NULL
    UNION ALL
    SELECT queue, (SELECT MAX(priority) FROM ${T} WHERE status = 'pending' AND queue = pending_level.queue AND priority < pending_level.priority)
    FROM pending_level WHERE priority IS NOT NULL
  )`;

/**
 * The statement's own clock in epoch ms: leases are measured from when a statement runs, which on SQLite can be up to
 * the busy timeout after it was queued (another process held the write lock). julianday('now') works on every SQLite
 * version (unixepoch('subsec') needs 3.42), and SQLite reads the same OS clock as Date.now().
 */
export const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

/** Our ids are positive integers; anything else names no job. */
export function toRowId(id: string): number | null {
  return /^[1-9]\d{0,15}$/.test(id) ? Number(id) : null;
}

/**
 * A new job's values in the order every SQLite insert of a job names its columns after `queue`: data, priority,
 * run_at, max_attempts, backoff, timeout_ms, unique_key, name, remove_on.
 */
export function newJobValues(job: NewJobRecord): unknown[] {
  return [job.data, job.priority, job.runAt, job.maxAttempts, job.backoff, job.timeout, job.key, job.name ?? null, job.removeOn ?? null];
}
