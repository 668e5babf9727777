/**
 * Names and fragments the SQLite statements of this folder share. Every statement of `sql/` uses positional `?`
 * parameters only (both node-sqlite3 and better-sqlite3 bind them), bound right beside its SQL. Statements that
 * return rows through RETURNING start with a comment: TypeORM's sqlite runner sends SQL that starts with
 * "UPDATE "/"INSERT " to run(), which drops rows.
 */
import { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../../table-names.constants';
import { NewJobRecord } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';

/** The jobs table. */
export const T = JOBS_TABLE;
/** The queues (pause state) table. */
export const Q = QUEUES_TABLE;
/** The schedules table. */
export const S = SCHEDULES_TABLE;

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

/**
 * The page of ids `idsSql` selects, read whole, newest first. A status's index is in (queue, status, ...) order, not
 * id order, so its page is sorted: sorting the ids alone, which the index holds (SQLite ends every index with the
 * rowid), reads no row but the page's. Sorting whole rows instead read every row of the status: on a million jobs
 * (810k completed in the queue, bench/list-plans.js) the completed tab took 23.6 s, the pending one 2.7 s.
 */
export function pageOfIds(idsSql: string): string {
  return `SELECT ${JOB_COLUMNS} FROM ${T} WHERE id IN (${idsSql}) ORDER BY id DESC`;
}

/**
 * `column` (a JSON array, NULL for none) with `value` appended, its oldest entry dropped once it holds `cap`: the
 * bounded lists a job keeps (`logs`, `runs`), in the statement that adds to them. `cap` and `value` are SQL (a `?`
 * parameter, a literal or an expression), bound in that order.
 */
export function cappedAppendSql(column: string, cap: string, value: string): string {
  return `json_insert(
        CASE WHEN json_array_length(COALESCE(${column}, '[]')) >= ${cap} THEN json_remove(${column}, '$[0]') ELSE COALESCE(${column}, '[]') END,
        '$[#]', ${value})`;
}
