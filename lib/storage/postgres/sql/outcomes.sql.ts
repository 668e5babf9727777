import { AttemptRef, Completion } from '../../queue-storage.interface';
import {
  PostgresContext,
  RELEASE_COLUMNS,
  REUSED,
  finishWaitersAt,
  ms,
  notifyFinished,
  perSchema,
  toRowId,
} from './postgres-sql-fragments';
import { appendRunSql } from './run-history.sql';

const sql = perSchema((tables) => {
  const { T } = tables;
  return {
    /**
     * Completes many attempts, each fenced by its own attempt number, and announces them in one notification.
     * Prepared, and shaped so that every plan the server may choose for it is the good one: the batch is walked by
     * position (`generate_subscripts`, which the planner always believes to be 1,000 rows long, generic plan or
     * custom) and hashed against the running rows. An `unnest` of the arrays is believed 10 rows long in a generic
     * plan, which then rescanned the batch once per running row (200 completions: 5.6 ms against 1.7). A position
     * reads a text array from its start, so a batch is cut into statements of at most COMPLETION_CHUNK jobs.
     * It keeps `locked_by`: the completed row names the process that ran it (`JobRun.owner`); no index holds the
     * column, so the update stays as HOT as before. `$7` holds each job's batch size (null for a single-job handler's),
     * which the completed run keeps in `run_batch`: no index holds that column either. It answers with the number of
     * rows it completed, not their ids: each item can match only its own row, and only while that row runs that
     * attempt for this worker, so a count equal to the batch's length means every attempt was still ours, which is
     * nearly always the answer; node-postgres parsed a returned row per job to say so. A short count reads back which
     * (`completedBy`).
     */
    completeMany: `/* complete */ WITH completed AS (
        UPDATE ${T} AS t
        SET status = 'completed', result = ($4::text[])[i], started_at = coalesce(($6::bigint[])[i], t.started_at), finished_at = $1, updated_at = $1,
          lease_until = NULL, run_batch = coalesce(($7::int[])[i], t.run_batch)
        FROM generate_subscripts($2::bigint[], 1) AS i
        WHERE t.id = ($2::bigint[])[i] AND t.attempts = ($3::int[])[i] AND t.locked_by = $5 AND t.status = 'running'
        RETURNING t.id
      ),
      ${notifyFinished(tables, 'completed', '$1')}
      SELECT count(*)::int AS completed FROM completed WHERE (SELECT count(*) FROM done) >= 0`,

    /**
     * Which attempts of a batch this worker's completion at `$3` completed (`$1` the ids, `$4` their attempts), read
     * after a short count: the rows it left completed, owned by this worker, at that completion's time. A row an operator
     * or retention changed between the two statements reads as not completed here; only a batch that already lost an
     * attempt reads back.
     */
    completedBy: `/* completed-by */ SELECT t.id FROM ${T} AS t
      JOIN unnest($1::bigint[], $4::int[]) AS c(id, attempt) ON t.id = c.id AND t.attempts = c.attempt
      WHERE t.id = ANY ($1::bigint[]) AND t.locked_by = $2 AND t.status = 'completed' AND t.finished_at = $3`,

    /**
     * The same completion for a batch where retention keeps nothing of some jobs (`$6`, by position; `$7` the starts, `$8`
     * the batch sizes): those rows are
     * deleted, one write instead of the update and retention's later delete (0.72x the server CPU per job,
     * bench/notes/2026-12-06-finished-job-layouts.md); the others are updated as above, the deleted ones left out.
     * A row something still reads once finished is updated instead (and left to retention): a flow child (its parent
     * reads its result), a dependency (the end trigger resolves its dependents on the update; a delete of a running
     * row would fail them), a throttled job whose key window is open (the window lives on the row), and every job
     * while some process waits for jobs to finish (a waiter reads the finished row).
     */
    completeManyRemoving: `/* complete-delete */ WITH removed AS (
        DELETE FROM ${T} AS t
        USING generate_subscripts($2::bigint[], 1) AS i
        WHERE t.id = ($2::bigint[])[i] AND t.attempts = ($3::int[])[i] AND ($6::boolean[])[i] AND t.locked_by = $5
          AND t.status = 'running' AND t.parent_id IS NULL AND t.dependents IS NULL AND (t.key_until IS NULL OR t.key_until <= $1)
          AND NOT ${finishWaitersAt(tables, '$1')}
        RETURNING t.id
      ),
      completed AS (
        UPDATE ${T} AS t
        SET status = 'completed', result = ($4::text[])[i], started_at = coalesce(($7::bigint[])[i], t.started_at), finished_at = $1,
          updated_at = $1, lease_until = NULL, run_batch = coalesce(($8::int[])[i], t.run_batch)
        FROM generate_subscripts($2::bigint[], 1) AS i
        WHERE t.id = ($2::bigint[])[i] AND t.attempts = ($3::int[])[i] AND t.locked_by = $5 AND t.status = 'running'
          AND t.id NOT IN (SELECT id FROM removed)
        RETURNING t.id
      ),
      ${notifyFinished(tables, '(SELECT id FROM completed UNION ALL SELECT id FROM removed) AS finished', '$1')}
      SELECT id FROM completed WHERE (SELECT count(*) FROM done) >= 0
      UNION ALL SELECT id FROM removed`,

    // A failed attempt that runs again; its run is recorded (a completion records none: the row is its own), with the
    // batch size the attempt carries ($8), else the one an earlier write of the run stored.
    retry: `UPDATE ${T}
      SET status = 'pending', error = $1, run_at = $2, updated_at = $3, started_at = coalesce($7::bigint, started_at),
          ${appendRunSql('$3', "'retried'", 'coalesce($7::bigint, started_at)', 'coalesce($8::int, run_batch)')}, ${RELEASE_COLUMNS}
      WHERE id = $4 AND locked_by = $5 AND attempts = $6 AND status = 'running'`,

    fail: `WITH failed AS (
        UPDATE ${T}
        SET status = 'failed', error = $1, finished_at = $2, updated_at = $2, started_at = coalesce($6::bigint, started_at),
            ${appendRunSql('$2', "'failed'", 'coalesce($6::bigint, started_at)', 'coalesce($7::int, run_batch)')}, ${RELEASE_COLUMNS}
        WHERE id = $3 AND locked_by = $4 AND attempts = $5 AND status = 'running'
        RETURNING id
      ),
      ${notifyFinished(tables, 'failed', '$2')}
      SELECT count(*) AS count FROM failed WHERE (SELECT count(*) FROM done) >= 0`,

    // The starts of attempts whose handlers got them, where none is recorded yet, and the batch sizes ($5) where not
    // recorded yet: one statement per write round (see the SQLite statement of the same name).
    markStarted: `/* started */ UPDATE ${T} AS t SET started_at = coalesce(t.started_at, s.at), run_batch = coalesce(s.batch, t.run_batch)
      FROM unnest($1::bigint[], $2::int[], $3::bigint[], $5::int[]) AS s(id, attempt, at, batch)
      WHERE t.id = s.id AND t.attempts = s.attempt AND t.locked_by = $4 AND t.status = 'running'
        AND (t.started_at IS NULL OR (s.batch IS NOT NULL AND t.run_batch IS DISTINCT FROM s.batch))`,

    updateProgress: `UPDATE ${T} SET progress = $1, updated_at = $2
      WHERE id = $3 AND locked_by = $4 AND attempts = $5 AND status = 'running'`,
  };
});

/**
 * Most completions per statement: a result is read by its position in the text array, which walks the array from its
 * start, so a statement's cost grows with the square of its length (1,000 jobs cost 1.25× the CPU of the same batch
 * planned per call, 200 jobs 0.72×: bench/pg-completion-plan.js).
 */
const COMPLETION_CHUNK = 250;

/**
 * Completes attempts; the ids this worker still owned. Hot path. Those whose retention keeps nothing (`remove`) are
 * deleted where nothing reads their finished row (`completeManyRemoving`); the rest are marked completed.
 */
export async function completeJobs(db: PostgresContext, completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
  const valid = completions.filter(({ ref }) => toRowId(ref.id) !== null);
  const completed = new Set<string>();
  for (let start = 0; start < valid.length; start += COMPLETION_CHUNK) {
    const chunk = valid.slice(start, start + COMPLETION_CHUNK);
    const ids = chunk.map(({ ref }) => ref.id);
    const attempts = chunk.map(({ ref }) => ref.attempt);
    const params = [ms(now), ids, attempts, chunk.map(({ result }) => result), workerId];
    // Each job's start, where no earlier write recorded it (the claim writes none), and its batch size.
    const starts = chunk.map(({ ref }) => startOf(ref));
    const batches = chunk.map(({ ref }) => ref.batch ?? null);
    const removing = chunk.some(({ remove }) => remove);
    if (removing) {
      const rows = await db.runner.all(
        sql(db.tables).completeManyRemoving,
        [...params, chunk.map(({ remove }) => remove === true), starts, batches],
        REUSED,
      );
      // Deleted rows cannot be read back: this statement names them.
      for (const row of rows) completed.add(String(row.id));
      continue;
    }
    const [row] = await db.runner.all(sql(db.tables).completeMany, [...params, starts, batches], REUSED);
    const count = Number(row?.completed ?? 0);
    if (count === chunk.length) for (const { ref } of chunk) completed.add(ref.id);
    else if (count > 0) {
      // Some attempt was no longer ours (cancelled, or its lease expired and another worker took it): read which were.
      const owned = await db.runner.all(sql(db.tables).completedBy, [ids, workerId, ms(now), attempts]);
      for (const { id } of owned) completed.add(String(id));
    }
  }
  return completed;
}

/** Puts an attempt back to pending until `runAt`; false when no longer owned. */
export async function retryJob(
  db: PostgresContext,
  ref: AttemptRef,
  workerId: string,
  error: string,
  runAt: number,
  now: number,
): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  return (
    (await db.runner.run(sql(db.tables).retry, [error, ms(runAt), ms(now), id, workerId, ref.attempt, startOf(ref), ref.batch ?? null])) ===
    1
  );
}

/** Marks an attempt failed for good; false when no longer owned. */
export async function failJob(db: PostgresContext, ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  const [row] = await db.runner.all(sql(db.tables).fail, [error, ms(now), id, workerId, ref.attempt, startOf(ref), ref.batch ?? null]);
  return Number(row?.count) === 1;
}

/**
 * Records the starts of these attempts (their `startedAt`) where none is yet, and the batch size of those that carry
 * one where it is not recorded yet; how many rows took either.
 */
export async function markStarted(db: PostgresContext, refs: AttemptRef[], workerId: string): Promise<number> {
  const valid = refs.filter((ref) => toRowId(ref.id) !== null && ref.startedAt !== undefined);
  if (valid.length === 0) return 0;
  return db.runner.run(
    sql(db.tables).markStarted,
    [
      valid.map((ref) => ref.id),
      valid.map((ref) => ref.attempt),
      valid.map((ref) => startOf(ref)),
      workerId,
      valid.map((ref) => ref.batch ?? null),
    ],
    REUSED,
  );
}

/** The attempt's start as a bigint parameter, or null when the write carries none. */
function startOf(ref: AttemptRef): number | null {
  return ref.startedAt === undefined ? null : ms(ref.startedAt);
}

/** Stores the progress of a running attempt; false when no longer owned. */
export async function updateProgress(
  db: PostgresContext,
  ref: AttemptRef,
  workerId: string,
  progress: string,
  now: number,
): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  return (await db.runner.run(sql(db.tables).updateProgress, [progress, ms(now), id, workerId, ref.attempt])) === 1;
}
