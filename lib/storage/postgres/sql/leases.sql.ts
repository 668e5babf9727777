import { AttemptRef, ExpiredLease, RecoveredJob } from '../../queue-storage.interface';
import { idsOf, toRecoveredJob } from '../../shared/job-row.mapper';
import { leaseExpiredErrorSql } from '../../shared/lease-expired';
import { StoredRunOutcome } from '../../shared/run-history';
import {
  PostgresContext,
  PostgresTables,
  RELEASE_COLUMNS,
  attemptArrays,
  ms,
  notifyFinished,
  notifyIfAny,
  perSchema,
  toRowId,
} from './postgres-sql-fragments';
import { appendRunSql } from './run-history.sql';

/** The recovery of the expired rows that also match `where` ($1 now, $2 jitter window; see `recoverExpired`). */
function recoverExpiredSql(tables: PostgresTables, where: string): string {
  const { T } = tables;
  return `WITH expired AS (
        SELECT id FROM ${T} WHERE status = 'running' AND lease_until < $1 AND ${where}
        FOR UPDATE SKIP LOCKED
      ),
      recovered AS (
        UPDATE ${T}
        SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
            error = ${leaseExpiredErrorSql('json_build_object')}::text,
            finished_at = CASE WHEN attempts >= max_attempts THEN $1 ELSE NULL END,
            run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE $1 + floor(random() * $2::bigint)::bigint END,
            ${appendRunSql('$1', "'lease-expired'")}, ${RELEASE_COLUMNS}, updated_at = $1,
            started_at = CASE WHEN debounce_key IS NULL THEN started_at ELSE coalesce(started_at, updated_at) END
        WHERE id IN (SELECT id FROM expired)
        RETURNING id, queue, status, attempts, run_at
      ),
      ${notifyIfAny(tables, "recovered WHERE status = 'pending'")},
      ${notifyFinished(tables, "recovered WHERE status = 'failed'", '$1')}
      SELECT * FROM recovered WHERE (SELECT count(*) FROM hint) >= 0 AND (SELECT count(*) FROM done) >= 0`;
}

const sql = perSchema((tables) => {
  const { T } = tables;
  return {
    /** Hands attempts back as if they never ran, each recorded in its run history as $5 says, and notifies. */
    release: `WITH released AS (
        UPDATE ${T}
        SET status = 'pending', attempts = attempts - 1, ${RELEASE_COLUMNS}, started_at = CASE WHEN debounce_key IS NULL THEN NULL ELSE coalesce(started_at, updated_at) END, updated_at = $1,
            ${appendRunSql('$1', '$5')}
        WHERE locked_by = $2 AND status = 'running'
          AND (id, attempts) IN (SELECT * FROM unnest($3::bigint[], $4::int[]))
        RETURNING run_at
      ),
      ${notifyIfAny(tables, 'released WHERE run_at <= $1')}
      SELECT (SELECT count(*) FROM released) AS count, (SELECT count(*) FROM hint) AS hinted`,

    // By id, through the primary key: a row under the same worker id that this process does not hold expires.
    // A row another statement has locked is being completed, failed, retried or recovered: it needs no renewal, and
    // waiting for it could deadlock against a completion batch of this process that locks the same rows in another
    // order. The next beat renews it if it is still running.
    extendLeases: `UPDATE ${T} SET lease_until = $1, updated_at = $2
      WHERE id IN (SELECT id FROM ${T} WHERE id = ANY($3::bigint[]) AND locked_by = $4 AND status = 'running' FOR UPDATE SKIP LOCKED)`,

    findCancelled: `SELECT id FROM ${T}
      WHERE locked_by = $1 AND status = 'cancelled'
        AND (id, attempts) IN (SELECT * FROM unnest($2::bigint[], $3::int[]))`,

    // The crashed run counted as an attempt, so a job that kills its process every time ends failed instead
    // of looping. Every node runs this; each row is taken once. A row another statement holds (its owner's
    // heartbeat or completion, another node's recovery) is skipped for the next pass instead of making this one
    // wait in a queue of lock waiters, and FOR UPDATE re-checks a row it does lock, so a row recovered meanwhile
    // is no longer found running. A requeued job is due after its own random delay below $2 ms, so jobs that
    // died together are claimed apart. All expired rows but the ids of $3.
    recoverExpired: recoverExpiredSql(tables, 'NOT (id = ANY($3::bigint[]))'),
    /** One expired row, by id ($3). */
    recoverOneExpired: recoverExpiredSql(tables, 'id = $3::bigint'),
    /** The expired rows but the ids of $2, for recovering them one by one. */
    findExpired: `SELECT id, queue FROM ${T} WHERE status = 'running' AND lease_until < $1 AND NOT (id = ANY($2::bigint[])) ORDER BY id`,
  };
});

/**
 * Hands attempts back to pending as if they never started; how many were still owned. `outcome` is what their run
 * history says: handed back (shutdown, a claim not run), or rate limited (the handler threw RateLimitError).
 */
export async function releaseJobs(
  db: PostgresContext,
  refs: AttemptRef[],
  workerId: string,
  now: number,
  outcome: Extract<StoredRunOutcome, 'handed-back' | 'rate-limited'> = 'handed-back',
): Promise<number> {
  const pairs = attemptArrays(refs);
  if (pairs.ids.length === 0) return 0;
  const [row] = await db.runner.all(sql(db.tables).release, [ms(now), workerId, pairs.ids, pairs.attempts, outcome]);
  return Number(row?.count ?? 0);
}

/** Extends the leases of these jobs of `workerId` to `leaseDuration` ms after `now` (this node's clock). */
export function extendLeases(
  db: PostgresContext,
  refs: AttemptRef[],
  workerId: string,
  leaseDuration: number,
  now: number,
): Promise<number> {
  return db.runner.run(sql(db.tables).extendLeases, [ms(now + leaseDuration), ms(now), attemptArrays(refs).ids, workerId]);
}

/** Of these attempts of `workerId`, the ids of those an operator cancelled meanwhile. */
export async function findCancelled(db: PostgresContext, refs: AttemptRef[], workerId: string): Promise<string[]> {
  const pairs = attemptArrays(refs);
  if (pairs.ids.length === 0) return [];
  return idsOf(await db.runner.all(sql(db.tables).findCancelled, [workerId, pairs.ids, pairs.attempts]));
}

/** Requeues (or fails, when out of attempts) running jobs whose lease ended before `now`, but those in `skip`. */
export async function recoverExpiredLeases(
  db: PostgresContext,
  now: number,
  jitterWindow: number,
  skip: readonly string[] = [],
): Promise<RecoveredJob[]> {
  const rows = await db.runner.all(sql(db.tables).recoverExpired, [ms(now), Math.max(1, ms(jitterWindow)), rowIds(skip)]);
  return rows.map(toRecoveredJob);
}

/** `recoverExpiredLeases` for one job: null when it is not running under an expired lease (any more). */
export async function recoverExpiredLease(
  db: PostgresContext,
  id: string,
  now: number,
  jitterWindow: number,
): Promise<RecoveredJob | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).recoverOneExpired, [ms(now), Math.max(1, ms(jitterWindow)), rowId]);
  return row ? toRecoveredJob(row) : null;
}

/** The running jobs whose lease ended before `now`, but those in `skip`, oldest first. */
export async function findExpiredLeases(db: PostgresContext, now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
  const rows = await db.runner.all(sql(db.tables).findExpired, [ms(now), rowIds(skip)]);
  return rows.map((row) => ({ id: String(row.id), queue: String(row.queue) }));
}

/** The row ids among `ids`. */
function rowIds(ids: readonly string[]): string[] {
  return ids.map(toRowId).filter((id): id is string => id !== null);
}
