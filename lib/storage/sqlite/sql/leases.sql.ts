import { AttemptRef, ExpiredLease, RecoveredJob } from '../../queue-storage.interface';
import { StoredRunOutcome } from '../../shared/run-history';
import { idsOf, toRecoveredJob } from '../../shared/job-row.mapper';
import { leaseExpiredErrorSql } from '../../shared/lease-expired';
import { StatementRunner } from '../../shared/statement-runner';
import { appendRunSql } from './run-history.sql';
import { NOW_MS, T, toRowId } from './sqlite-sql-fragments';

/**
 * Hands attempts back as if they never ran (the attempt is not counted), each recorded in its job's run history with
 * the outcome given. A debounced job keeps started_at: once claimed it is out of the debounce index for good, so
 * handing it back never collides with the next one of its key (one claimed and never started takes the time of its
 * last write, its claim's or its heartbeat's, for that). Params: now, now, outcome, worker, attempts.
 */
const RELEASE_SQL = `UPDATE ${T}
  SET status = 'pending', attempts = attempts - 1, locked_by = NULL, lease_until = NULL, started_at = CASE WHEN debounce_key IS NULL THEN NULL ELSE coalesce(started_at, updated_at) END, updated_at = ?,
      ${appendRunSql('?', '?')}
  WHERE locked_by = ? AND status = 'running'
    AND (id, attempts) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j)`;

/**
 * One heartbeat for the jobs this process holds, by id: a running row under the same worker id that the process
 * does not hold (left by a crashed process that had the same fixed workerId) must be left to expire.
 */
const EXTEND_LEASES_SQL = `UPDATE ${T} SET lease_until = ${NOW_MS} + ?, updated_at = ?
  WHERE id IN (SELECT value FROM json_each(?)) AND locked_by = ? AND status = 'running'`;

/** Attempts of a worker that were cancelled meanwhile. */
const FIND_CANCELLED_SQL = `SELECT id FROM ${T}
  WHERE locked_by = ? AND status = 'cancelled'
    AND (id, attempts) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j)`;

/**
 * Takes back running jobs whose owner stopped renewing their lease. The crashed run counted as an
 * attempt, so a job that kills its process every time ends failed instead of looping. A requeued job is due
 * after a random delay below the jitter window (at least 1: `% 0` is NULL), drawn per row, so jobs that died
 * together are claimed apart. The run is recorded as its owner left it: a job claimed ahead and never started keeps
 * started_at unset, as its run does (a debounced one takes its last write's time, as a hand-back does). Parameters: now, now, window, now, now,
 * then those of `where`.
 */
const recoverExpiredSql = (where: string) => `/* recover */ UPDATE ${T}
  SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
      error = ${leaseExpiredErrorSql('json_object')},
      finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,
      run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE ? + abs(random() % ?) END,
      ${appendRunSql('?', "'lease-expired'")}, locked_by = NULL, lease_until = NULL, updated_at = ?,
      started_at = CASE WHEN debounce_key IS NULL THEN started_at ELSE coalesce(started_at, updated_at) END
  WHERE status = 'running' AND lease_until < ? AND ${where}
  RETURNING id, queue, status, attempts, run_at`;

/** Every expired row but those skipped (a JSON array of ids): one statement. */
export const RECOVER_EXPIRED_SQL = recoverExpiredSql(`id NOT IN (SELECT value FROM json_each(?))`);

/** One expired row, by id. */
const RECOVER_ONE_EXPIRED_SQL = recoverExpiredSql(`id = ?`);

/**
 * The expired rows but those skipped, for recovering them one by one. `+id`: ordered by the plain `id`, SQLite walked
 * the whole table in primary-key order to spare a sort, instead of the few running rows of the running index.
 */
export const FIND_EXPIRED_SQL = `SELECT id, queue FROM ${T}
  WHERE status = 'running' AND lease_until < ? AND id NOT IN (SELECT value FROM json_each(?)) ORDER BY +id`;

/**
 * Hands attempts back to pending as if they never started; how many were still owned. `outcome` is what their run
 * history says: handed back (shutdown, a claim not run), or rate limited (the handler threw RateLimitError).
 */
export function releaseJobs(
  runner: StatementRunner,
  refs: AttemptRef[],
  workerId: string,
  now: number,
  outcome: Extract<StoredRunOutcome, 'handed-back' | 'rate-limited'> = 'handed-back',
): Promise<number> {
  return runner.run(RELEASE_SQL, [now, now, outcome, workerId, attemptPairs(refs)]);
}

/** Extends the leases of these jobs of `workerId` by `leaseDuration` ms from when the statement runs. */
export function extendLeases(
  runner: StatementRunner,
  refs: AttemptRef[],
  workerId: string,
  leaseDuration: number,
  now: number,
): Promise<number> {
  const ids = JSON.stringify(refs.map((ref) => Number(ref.id)));
  return runner.run(EXTEND_LEASES_SQL, [Math.round(leaseDuration), now, ids, workerId]);
}

/** Of these attempts of `workerId`, the ids of those an operator cancelled meanwhile. */
export async function findCancelled(runner: StatementRunner, refs: AttemptRef[], workerId: string): Promise<string[]> {
  return idsOf(await runner.all(FIND_CANCELLED_SQL, [workerId, attemptPairs(refs)]));
}

/** Requeues (or fails, when out of attempts) running jobs whose lease ended before `now`, but those in `skip`. */
export async function recoverExpiredLeases(
  runner: StatementRunner,
  now: number,
  jitterWindow: number,
  skip: readonly string[] = [],
): Promise<RecoveredJob[]> {
  const window = Math.max(1, Math.round(jitterWindow));
  return (await runner.all(RECOVER_EXPIRED_SQL, [now, now, window, now, now, now, rowIds(skip)])).map(toRecoveredJob);
}

/** `recoverExpiredLeases` for one job: null when it is not running under an expired lease (any more). */
export async function recoverExpiredLease(
  runner: StatementRunner,
  id: string,
  now: number,
  jitterWindow: number,
): Promise<RecoveredJob | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const window = Math.max(1, Math.round(jitterWindow));
  const [row] = await runner.all(RECOVER_ONE_EXPIRED_SQL, [now, now, window, now, now, now, rowId]);
  return row ? toRecoveredJob(row) : null;
}

/** The running jobs whose lease ended before `now`, but those in `skip`, oldest first. */
export async function findExpiredLeases(runner: StatementRunner, now: number, skip: readonly string[]): Promise<ExpiredLease[]> {
  return (await runner.all(FIND_EXPIRED_SQL, [now, rowIds(skip)])).map((row) => ({ id: String(row.id), queue: String(row.queue) }));
}

/** A JSON array of the row ids among `ids`. */
function rowIds(ids: readonly string[]): string {
  return JSON.stringify(ids.map(toRowId).filter((id) => id !== null));
}

/** A JSON array of [id, attempt] per attempt. */
function attemptPairs(refs: AttemptRef[]): string {
  return JSON.stringify(refs.map((ref) => [Number(ref.id), ref.attempt]));
}
