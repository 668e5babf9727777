import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/**
 * The columns the claim packs into its JSON array (see claim.sql.ts) that a row written by another tool could hold
 * a BLOB in and still be claimed: json_array refuses a BLOB, which fails the whole claim, for every queue, as long
 * as the row is due. `id`, `queue` and `run_at` cannot (a claimed row matched `queue = ?` and `run_at <= ?`); the
 * claim itself sets `attempts` and `lease_until`.
 */
export const BLOB_CHECKED_COLUMNS: readonly string[] = [
  'priority',
  'max_attempts',
  'backoff',
  'timeout_ms',
  'unique_key',
  'created_at',
  'name',
  'remove_on',
  'job_group',
  'trace_context',
];

/** A due row of a claimed queue with BLOBs in packed columns. */
export interface BlobRow {
  id: string;
  queue: string;
  /** Its packed columns that hold a BLOB. */
  columns: string[];
}

/**
 * The due pending rows of the queues (JSON array) with a BLOB in a packed column, and which columns: read only after
 * a claim failed on one, so the claim's own text pays nothing for the check. Params: queues, now.
 */
const DUE_BLOB_ROWS_SQL = `SELECT id, queue, rtrim(${BLOB_CHECKED_COLUMNS.map((column) => `iif(typeof(${column}) = 'blob', '${column},', '')`).join(' || ')}, ',') AS columns
  FROM ${T} WHERE queue IN (SELECT value FROM json_each(?)) AND status = 'pending' AND run_at <= ?
    AND (${BLOB_CHECKED_COLUMNS.map((column) => `typeof(${column}) = 'blob'`).join(' OR ')})`;

/** Fails one such row for good, if it is still pending. Params: error, now, now, id. */
const FAIL_BLOB_ROW_SQL = `UPDATE ${T} SET status = 'failed', error = ?, finished_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND status = 'pending'`;

/** Whether a claim failed because a packed column held a BLOB (SQLite's message, the same through both drivers). */
export function isBlobInJsonError(error: unknown): boolean {
  return String((error as { message?: unknown } | null)?.message ?? error).includes('JSON cannot hold BLOB values');
}

/** See `DUE_BLOB_ROWS_SQL`. */
export async function dueBlobRows(runner: StatementRunner, queues: string[], now: number): Promise<BlobRow[]> {
  const rows = await runner.all(DUE_BLOB_ROWS_SQL, [JSON.stringify(queues), now]);
  return rows.map((row) => ({ id: String(row.id), queue: String(row.queue), columns: String(row.columns).split(',') }));
}

/** See `FAIL_BLOB_ROW_SQL`; true when the row was failed. */
export async function failBlobRow(runner: StatementRunner, id: string, error: string, now: number): Promise<boolean> {
  return (await runner.run(FAIL_BLOB_ROW_SQL, [error, now, now, Number(id)])) === 1;
}
