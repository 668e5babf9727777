import { AttemptRef, Completion } from '../../queue-storage.interface';
import { PostgresContext, RELEASE_COLUMNS, ms, notifyFinished, perSchema, toRowId } from './postgres-sql-fragments';
import { appendRunSql } from './run-history.sql';

const sql = perSchema((tables) => {
  const { T } = tables;
  return {
    /**
     * Completes many attempts, each fenced by its own attempt number, and announces them in one notification.
     * Planned at each call, not prepared: only a plan that knows the batch's size hashes it. The generic plan of a
     * prepared statement guesses 10 rows and, with statistics taken while most jobs were pending, walked the whole
     * batch once per running row (200 completions: 9 ms against 2). Forcing primary-key lookups instead was no cure:
     * a custom plan that believes about one job runs scans the table once and the batch once per row it finds.
     * It keeps `locked_by`: the completed row names the process that ran it (`JobRun.owner`); no index holds the
     * column, so the update stays as HOT as before.
     */
    completeMany: `/* complete */ WITH completed AS (
        UPDATE ${T} AS t
        SET status = 'completed', result = c.result, finished_at = $1, updated_at = $1, lease_until = NULL
        FROM unnest($2::bigint[], $3::int[], $4::text[]) AS c(id, attempt, result)
        WHERE t.id = c.id AND t.attempts = c.attempt AND t.locked_by = $5 AND t.status = 'running'
        RETURNING t.id
      ),
      ${notifyFinished(tables, 'completed', '$1')}
      SELECT id FROM completed WHERE (SELECT count(*) FROM done) >= 0`,

    // A failed attempt that runs again; its run is recorded (a completion records none: the row is its own).
    retry: `UPDATE ${T}
      SET status = 'pending', error = $1, run_at = $2, updated_at = $3, ${appendRunSql('$3', "'retried'")}, ${RELEASE_COLUMNS}
      WHERE id = $4 AND locked_by = $5 AND attempts = $6 AND status = 'running'`,

    fail: `WITH failed AS (
        UPDATE ${T}
        SET status = 'failed', error = $1, finished_at = $2, updated_at = $2, ${appendRunSql('$2', "'failed'")}, ${RELEASE_COLUMNS}
        WHERE id = $3 AND locked_by = $4 AND attempts = $5 AND status = 'running'
        RETURNING id
      ),
      ${notifyFinished(tables, 'failed', '$2')}
      SELECT count(*) AS count FROM failed WHERE (SELECT count(*) FROM done) >= 0`,

    updateProgress: `UPDATE ${T} SET progress = $1, updated_at = $2
      WHERE id = $3 AND locked_by = $4 AND attempts = $5 AND status = 'running'`,
  };
});

/** Marks attempts completed; the ids this worker still owned. Hot path. */
export async function completeJobs(db: PostgresContext, completions: Completion[], workerId: string, now: number): Promise<Set<string>> {
  const valid = completions.filter(({ ref }) => toRowId(ref.id) !== null);
  if (valid.length === 0) return new Set();
  const rows = await db.runner.all(sql(db.tables).completeMany, [
    ms(now),
    valid.map(({ ref }) => ref.id),
    valid.map(({ ref }) => ref.attempt),
    valid.map(({ result }) => result),
    workerId,
  ]);
  return new Set(rows.map((row) => String(row.id)));
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
  return (await db.runner.run(sql(db.tables).retry, [error, ms(runAt), ms(now), id, workerId, ref.attempt])) === 1;
}

/** Marks an attempt failed for good; false when no longer owned. */
export async function failJob(db: PostgresContext, ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  const [row] = await db.runner.all(sql(db.tables).fail, [error, ms(now), id, workerId, ref.attempt]);
  return Number(row?.count) === 1;
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
