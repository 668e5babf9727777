import { JobStatus } from '../../../interfaces/job-info.interface';
import { DEPENDENCIES_TABLE } from '../../../table-names.constants';
import { JobRecord, KeyBlockedJob } from '../../queue-storage.interface';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { jobColumnsOf } from '../../shared/job-columns';
import { idsOf, toJobRecord, toKeyBlockedJob } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { Q, T, toRowId } from './sqlite-sql-fragments';

const D = DEPENDENCIES_TABLE;

const SET_PAUSED_SQL = `INSERT INTO ${Q} (queue, paused, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`;

const JOB_STATUS_SQL = `SELECT status FROM ${T} WHERE id = ?`;

/** Keeps locked_by so the owner can find out. */
const CANCEL_SQL = `UPDATE ${T} SET status = 'cancelled', finished_at = ?, updated_at = ?, lease_until = NULL
  WHERE id = ? AND status IN ('pending', 'running')`;

/** A finished job may be retried only while no live job of its queue holds its key (the unique key index). */
const KEY_NOT_HELD = `(unique_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS live
    WHERE live.queue = ${T}.queue AND live.unique_key = ${T}.unique_key AND live.status IN ('pending', 'running')))`;

/**
 * A debounced job that never started would be pending and unstarted again: only while no other job of its key is
 * (the debounce key index allows one). One that started is out of that index for good.
 */
const DEBOUNCE_KEY_NOT_HELD = `(debounce_key IS NULL OR started_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS live
    WHERE live.queue = ${T}.queue AND live.debounce_key = ${T}.debounce_key AND live.status = 'pending' AND live.started_at IS NULL))`;

/** Of several failed jobs sharing a key, only the newest is retried: two pending at once would break the index. */
const NEWEST_FAILED_OF_KEY = `(unique_key IS NULL OR id = (SELECT MAX(peer.id) FROM ${T} AS peer
    WHERE peer.queue = ${T}.queue AND peer.unique_key = ${T}.unique_key AND peer.status = 'failed'))`;

/**
 * A retried flow parent with children still pending or running waits for them again (the flow trigger releases it
 * when the last one ends), instead of running beside them: a cancel or a child's failure left them live. So does a
 * retried dependent with a dependency pending or running (retried itself, as the docs advise, before its dependents):
 * the end of that dependency releases it, or fails it again, as at its add. Params: now.
 */
const RETRIED_RUN_AT = `CASE WHEN EXISTS (SELECT 1 FROM ${T} AS child WHERE child.parent_id = ${T}.id AND child.status IN ('pending', 'running'))
      OR (${T}.depends_on IS NOT NULL AND EXISTS (SELECT 1 FROM ${D} AS edge JOIN ${T} AS dep ON dep.id = edge.depends_on
        WHERE edge.job_id = ${T}.id AND dep.status IN ('pending', 'running')))
    THEN ? + ${FLOW_WAIT_OFFSET} ELSE ? END`;

/**
 * OR IGNORE keeps a row that would still collide on its key (it stays finished) instead of failing the statement
 * and retrying nothing.
 */
const RETRY_FINISHED_BY_IDS_SQL = `/* retry */ UPDATE OR IGNORE ${T}
  SET status = 'pending', attempts = 0, run_at = ${RETRIED_RUN_AT}, updated_at = ?, finished_at = NULL, locked_by = NULL, lease_until = NULL, run_batch = NULL
  WHERE status IN ('failed', 'cancelled') AND id IN (SELECT value FROM json_each(?)) AND ${KEY_NOT_HELD} AND ${DEBOUNCE_KEY_NOT_HELD}
  RETURNING id`;

const RETRY_FINISHED_OF_QUEUE_SQL = `/* retry */ UPDATE OR IGNORE ${T}
  SET status = 'pending', attempts = 0, run_at = ${RETRIED_RUN_AT}, updated_at = ?, finished_at = NULL, locked_by = NULL, lease_until = NULL, run_batch = NULL
  WHERE queue = ? AND status = 'failed' AND ${KEY_NOT_HELD} AND ${DEBOUNCE_KEY_NOT_HELD} AND ${NEWEST_FAILED_OF_KEY}
  RETURNING id`;

/** The other unstarted debounced job of the key of a job that never started (through the debounce key index). */
const DEBOUNCE_KEY_HOLDER_SQL = `SELECT ${jobColumnsOf('live')} FROM ${T} AS job JOIN ${T} AS live
    ON live.queue = job.queue AND live.debounce_key = job.debounce_key AND live.status = 'pending' AND live.started_at IS NULL
  WHERE job.id = ? AND job.started_at IS NULL AND live.id <> job.id`;

/** Failed jobs of a queue, finished no later than a time, that a live job's key keeps from being retried, with that job. */
const KEY_BLOCKED_FAILED_SQL = `SELECT failed.id AS id, failed.unique_key AS unique_key, live.id AS holder_id
  FROM ${T} AS failed JOIN ${T} AS live
    ON live.queue = failed.queue AND live.unique_key = failed.unique_key AND live.status IN ('pending', 'running')
  WHERE failed.queue = ? AND failed.status = 'failed' AND failed.finished_at IS NOT NULL AND failed.finished_at <= ?
    AND failed.unique_key IS NOT NULL
  ORDER BY failed.id`;

/**
 * Deletes a job unless it is running, and says what it deleted: the check and the delete are one statement, so
 * a claim cannot slip in between them. No row back: no such job, or it is running.
 */
const REMOVE_SQL = `/* remove */ DELETE FROM ${T} WHERE id = ? AND status <> 'running' RETURNING status`;

/** Pauses or resumes a queue. */
export async function setPaused(runner: StatementRunner, queue: string, paused: boolean, now: number): Promise<void> {
  await runner.run(SET_PAUSED_SQL, [queue, paused ? 1 : 0, now]);
}

/** Cancels a pending or running job: its status before, or null when there is no such job. */
export async function cancelJob(runner: StatementRunner, id: string, now: number): Promise<JobStatus | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  // Read, then a guarded write: if the job moved on in between, the guard makes the write a no-op and
  // we report the status it moved to.
  for (;;) {
    const [row] = await runner.all(JOB_STATUS_SQL, [rowId]);
    if (!row) return null;
    const status = row.status as JobStatus;
    if (status !== 'pending' && status !== 'running') return status;
    if ((await runner.run(CANCEL_SQL, [now, now, rowId])) === 1) return status;
  }
}

/** Deletes a job that is not running: its status before, or null when there is no such job. */
export async function removeJob(runner: StatementRunner, id: string): Promise<JobStatus | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  // The delete decides; the read after a refusal only tells "no such job" from "running". A job that stopped
  // running in between is not reported as refused: the delete is tried again.
  for (;;) {
    const [removed] = await runner.all(REMOVE_SQL, [rowId]);
    if (removed) return removed.status as JobStatus;
    const [row] = await runner.all(JOB_STATUS_SQL, [rowId]);
    if (!row) return null;
    if (row.status === 'running') return 'running';
  }
}

/** Puts failed or cancelled jobs back to pending with fresh attempts: the ids that changed. */
export async function retryFinished(
  runner: StatementRunner,
  target: { ids: string[] } | { queue: string },
  now: number,
): Promise<string[]> {
  const rows =
    'ids' in target
      ? await runner.all(RETRY_FINISHED_BY_IDS_SQL, [now, now, now, JSON.stringify(target.ids.map(toRowId).filter((id) => id !== null))])
      : await runner.all(RETRY_FINISHED_OF_QUEUE_SQL, [now, now, now, target.queue]);
  return idsOf(rows);
}

/** See `ControlStorage.debounceKeyHolder`. */
export async function debounceKeyHolder(runner: StatementRunner, id: string): Promise<JobRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await runner.all(DEBOUNCE_KEY_HOLDER_SQL, [rowId]);
  return row ? toJobRecord(row) : null;
}

/** Failed jobs of `queue`, finished no later than `finishedAtMost`, whose key a live job holds. */
export async function keyBlockedFailed(runner: StatementRunner, queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
  return (await runner.all(KEY_BLOCKED_FAILED_SQL, [queue, finishedAtMost])).map(toKeyBlockedJob);
}
