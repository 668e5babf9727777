import { JobStatus } from '../../../interfaces/job-info.interface';
import { JobRecord, KeyBlockedJob } from '../../queue-storage.interface';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { jobColumnsOf } from '../../shared/job-columns';
import { idsOf, toJobRecord, toKeyBlockedJob } from '../../shared/job-row.mapper';
import { PostgresContext, RELEASE_COLUMNS, ms, notifyFinished, notifyIfAny, perSchema, toRowId } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T, Q, D } = tables;
  // A retried flow parent with children still pending or running waits for them again (the flow trigger releases
  // it when the last one ends) instead of running beside them. Their rows are read FOR SHARE: a child whose ending
  // is being committed is waited for and seen ended (its trigger found the parent finished and left it), and one
  // ending later waits for this statement and then finds the parent waiting. `parents` lists the candidates.
  const liveChildren = (parents: string) => `live_children AS MATERIALIZED (
        SELECT DISTINCT c.parent_id FROM (SELECT c.parent_id FROM ${T} AS c
          WHERE c.parent_id IN (${parents}) AND c.status IN ('pending', 'running') FOR SHARE OF c) AS c
      )`;
  // So does a retried dependent with a dependency pending or running (retried itself before its dependents, as the
  // docs advise), the dependencies read FOR SHARE for the same reasons: the end of that dependency releases it, or
  // fails it again. `jobs` lists the candidates.
  const liveDependencies = (jobs: string) => `live_dependencies AS MATERIALIZED (
        SELECT DISTINCT e.job_id FROM (SELECT e.job_id FROM ${D} AS e JOIN ${T} AS x ON x.id = e.depends_on
          WHERE e.job_id IN (${jobs}) AND x.status IN ('pending', 'running') FOR SHARE OF x) AS e
      )`;
  const retriedRunAt = `CASE WHEN t.id IN (SELECT parent_id FROM live_children) OR t.id IN (SELECT job_id FROM live_dependencies)
    THEN $1::bigint + ${FLOW_WAIT_OFFSET} ELSE $1::bigint END`;
  const keyNotHeld = (row: string) => `(${row}.unique_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS live
    WHERE live.queue = ${row}.queue AND live.unique_key = ${row}.unique_key AND live.status IN ('pending', 'running')))
    AND (${row}.debounce_key IS NULL OR ${row}.started_at IS NOT NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS live
      WHERE live.queue = ${row}.queue AND live.debounce_key = ${row}.debounce_key AND live.status = 'pending' AND live.started_at IS NULL))`;
  return {
    setPaused: `INSERT INTO ${Q} (queue, paused, updated_at) VALUES ($1, $2, $3)
      ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`,

    // Locks the row first, so the status we report is the one we changed (or the one that made us leave it).
    // Keeps locked_by so the owner can find out.
    cancel: `WITH target AS (SELECT id, status FROM ${T} WHERE id = $2 FOR UPDATE),
      changed AS (
        UPDATE ${T} AS t SET status = 'cancelled', finished_at = $1, updated_at = $1, lease_until = NULL
        FROM target WHERE t.id = target.id AND target.status IN ('pending', 'running')
        RETURNING t.id
      ),
      ${notifyFinished(tables, 'changed', '$1')}
      SELECT status FROM target WHERE (SELECT count(*) FROM done) >= 0`,

    // A finished job is retried only while no live job of its queue holds its key, and of several failed jobs
    // sharing a key only the newest: two pending at once would break the unique key index. A key taken by a
    // transaction that commits after this statement's snapshot still fails it (23505): `retryFinished` runs it again.
    retryFinishedByIds: `WITH ${liveChildren(`SELECT unnest($2::bigint[])`)}, ${liveDependencies(`SELECT unnest($2::bigint[])`)},
      retried AS (
        UPDATE ${T} AS t
        SET status = 'pending', attempts = 0, run_at = ${retriedRunAt}, updated_at = $1, finished_at = NULL, run_batch = NULL, ${RELEASE_COLUMNS}
        WHERE t.status IN ('failed', 'cancelled') AND t.id = ANY($2::bigint[]) AND ${keyNotHeld('t')}
        RETURNING t.id, t.run_at
      ),
      ${notifyIfAny(tables, 'retried WHERE run_at <= $1')}
      SELECT id FROM retried WHERE (SELECT count(*) FROM hint) >= 0`,

    retryFinishedOfQueue: `WITH ${liveChildren(`SELECT id FROM ${T} WHERE queue = $2 AND status = 'failed'`)},
      ${liveDependencies(`SELECT id FROM ${T} WHERE queue = $2 AND status = 'failed' AND depends_on IS NOT NULL`)},
      retried AS (
        UPDATE ${T} AS t
        SET status = 'pending', attempts = 0, run_at = ${retriedRunAt}, updated_at = $1, finished_at = NULL, run_batch = NULL, ${RELEASE_COLUMNS}
        WHERE t.queue = $2 AND t.status = 'failed' AND ${keyNotHeld('t')}
          AND (t.unique_key IS NULL OR t.id = (SELECT max(peer.id) FROM ${T} AS peer
            WHERE peer.queue = t.queue AND peer.unique_key = t.unique_key AND peer.status = 'failed'))
        RETURNING t.id, t.run_at
      ),
      ${notifyIfAny(tables, 'retried WHERE run_at <= $1')}
      SELECT id FROM retried WHERE (SELECT count(*) FROM hint) >= 0`,

    // The other unstarted debounced job of the key of a job that never started (through the debounce key index).
    debounceKeyHolder: `SELECT ${jobColumnsOf('live')} FROM ${T} AS job JOIN ${T} AS live
        ON live.queue = job.queue AND live.debounce_key = job.debounce_key AND live.status = 'pending' AND live.started_at IS NULL
      WHERE job.id = $1 AND job.started_at IS NULL AND live.id <> job.id`,

    keyBlockedFailed: `SELECT failed.id AS id, failed.unique_key AS unique_key, live.id AS holder_id
      FROM ${T} AS failed JOIN ${T} AS live
        ON live.queue = failed.queue AND live.unique_key = failed.unique_key AND live.status IN ('pending', 'running')
      WHERE failed.queue = $1 AND failed.status = 'failed' AND failed.finished_at <= $2 AND failed.unique_key IS NOT NULL
      ORDER BY failed.id`,

    // A removed job is announced like a finished one: a wait for it anywhere looks at once, and finds it gone.
    remove: `WITH target AS (SELECT id, status FROM ${T} WHERE id = $1 FOR UPDATE),
      removed AS (DELETE FROM ${T} AS t USING target WHERE t.id = target.id AND target.status <> 'running' RETURNING t.id),
      ${notifyFinished(tables, 'removed', '$2')}
      SELECT status FROM target WHERE (SELECT count(*) FROM done) >= 0`,
  };
});

/** How many times a retry of finished jobs runs when keys keep being taken under it. */
const RETRY_FINISHED_ROUNDS = 3;

/** Pauses or resumes a queue. */
export async function setPaused(db: PostgresContext, queue: string, paused: boolean, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).setPaused, [queue, paused, ms(now)]);
}

/** Cancels a pending or running job: its status before, or null when there is no such job. */
export async function cancelJob(db: PostgresContext, id: string, now: number): Promise<JobStatus | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).cancel, [ms(now), rowId]);
  return row ? (row.status as JobStatus) : null;
}

/** Deletes a job that is not running (announced to waiters): its status before, or null when there is no such job. */
export async function removeJob(db: PostgresContext, id: string, now: number): Promise<JobStatus | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).remove, [rowId, ms(now)]);
  return row ? (row.status as JobStatus) : null;
}

/** Puts failed or cancelled jobs back to pending with fresh attempts: the ids that changed. */
export async function retryFinished(db: PostgresContext, target: { ids: string[] } | { queue: string }, now: number): Promise<string[]> {
  const statements = sql(db.tables);
  let statement: string;
  let params: unknown[];
  if ('ids' in target) {
    const ids = target.ids.map(toRowId).filter((rowId): rowId is string => rowId !== null);
    if (ids.length === 0) return [];
    [statement, params] = [statements.retryFinishedByIds, [ms(now), ids]];
  } else {
    [statement, params] = [statements.retryFinishedOfQueue, [ms(now), target.queue]];
  }
  // The statement skips keys held by live jobs as of its snapshot; a key taken by a transaction that commits
  // meanwhile still collides (23505). Run again, now seeing that job, a bounded number of times.
  for (let attempt = 1; ; attempt++) {
    try {
      return idsOf(await db.runner.all(statement, params));
    } catch (error) {
      if (attempt >= RETRY_FINISHED_ROUNDS || !isUniqueViolation(error)) throw error;
    }
  }
}

/** See `ControlStorage.debounceKeyHolder`. */
export async function debounceKeyHolder(db: PostgresContext, id: string): Promise<JobRecord | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).debounceKeyHolder, [rowId]);
  return row ? toJobRecord(row) : null;
}

/** Failed jobs of `queue`, finished no later than `finishedAtMost`, whose key a live job holds. */
export async function keyBlockedFailed(db: PostgresContext, queue: string, finishedAtMost: number): Promise<KeyBlockedJob[]> {
  return (await db.runner.all(sql(db.tables).keyBlockedFailed, [queue, ms(finishedAtMost)])).map(toKeyBlockedJob);
}

/** PostgreSQL's unique_violation, as TypeORM's QueryFailedError carries it. */
function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | null)?.driverError;
  return driverError?.code === '23505';
}
