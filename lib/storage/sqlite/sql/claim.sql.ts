import { ClaimRequest, JobRecord } from '../../queue-storage.interface';
import { StorageRow, claimedJobRecord } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { NOW_MS, Q, T } from './sqlite-sql-fragments';

/**
 * What a worker needs of a job it claimed, as two columns: the payload, and the rest packed in one JSON array in
 * the order `toClaimedRecord` reads it. The drivers build one JavaScript property per column and row, which cost
 * twice as much as one JSON.parse of the packed array (measured with node-sqlite3 on 200-row claims).
 */
const CLAIMED_COLUMNS =
  'data, json_array(id, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on) AS m';

/** One text per number of queues: the prepared-statement runner keeps one statement per text. */
const claimSqlCache = new Map<number, string>();

/**
 * One statement that claims for several queues at once: a UNION ALL of one index walk per queue, each
 * with its own LIMIT, so a queue never takes more than its free slots and a full queue costs nothing.
 * Params: workerId, leaseDuration, now, now, then (queue, now, queue, limit) per queue.
 */
function claimSql(queueCount: number): string {
  let sql = claimSqlCache.get(queueCount);
  if (sql === undefined) {
    // The paused test names the queue by parameter, not by the row's column: uncorrelated, SQLite evaluates it
    // once per branch instead of once per candidate row.
    const branch = `SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ?
      AND NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ? AND paused = 1)
      ORDER BY priority DESC, run_at, id LIMIT ?)`;
    sql = `/* claim */ UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ${NOW_MS} + ?, started_at = ?, updated_at = ?
      WHERE id IN (${Array.from({ length: queueCount }, () => branch).join(' UNION ALL ')})
      RETURNING ${CLAIMED_COLUMNS}`;
    claimSqlCache.set(queueCount, sql);
  }
  return sql;
}

/**
 * Takes up to each request's limit of due pending jobs of unpaused queues for `workerId`, in one statement. The
 * lease runs from when the statement runs (see NOW_MS). Hot path.
 */
export async function claimJobs(
  runner: StatementRunner,
  requests: ClaimRequest[],
  workerId: string,
  now: number,
  leaseDuration: number,
): Promise<JobRecord[]> {
  const params: unknown[] = [workerId, Math.round(leaseDuration), now, now];
  for (const request of requests) params.push(request.queue, now, request.queue, request.limit);
  const rows = await runner.all(claimSql(requests.length), params);
  return rows.map((row) => toClaimedRecord(row, workerId, now));
}

/** A claimed row: the payload, and the rest packed in the order of `CLAIMED_COLUMNS`. */
function toClaimedRecord(row: StorageRow, workerId: string, now: number): JobRecord {
  const meta = JSON.parse(row.m as string) as ClaimedMeta;
  const [id, queue, priority, runAt, attempts, maxAttempts, backoff, timeout, key, createdAt, leaseUntil, name, removeOn] = meta;
  const data = row.data as string;
  const fields = { id: String(id), queue, data, priority, runAt, attempts, maxAttempts, backoff, timeout, key, createdAt, name, removeOn };
  return claimedJobRecord(fields, workerId, leaseUntil, now);
}

/** The packed column of a claimed row, in the order of `CLAIMED_COLUMNS`. */
type ClaimedMeta = [
  number,
  string,
  number,
  number,
  number,
  number,
  string | null,
  number | null,
  string | null,
  number,
  number,
  string | null,
  number | null,
];
