import { AttemptRef } from '../../queue-storage.interface';
import { PostgresContext, cappedAppendSql, ms, perSchema, toRowId } from './postgres-sql-fragments';

const sql = perSchema(({ T }) => ({
  /** Appends a line to the job's JSON log; at the cap, the oldest line goes in the same statement. */
  appendLog: `UPDATE ${T}
      SET logs = ${cappedAppendSql('logs', '$1', '$2::text')}, updated_at = $3
      WHERE id = $4 AND locked_by = $5 AND attempts = $6 AND status = 'running'`,

  updateData: `UPDATE ${T} SET data = $1, updated_at = $2 WHERE id = $3 AND locked_by = $4 AND attempts = $5 AND status = 'running'`,

  getLogs: `SELECT logs FROM ${T} WHERE id = $1`,

  /** Only jobs still in the outcome that asked for removal: an operator may have retried one meanwhile. */
  removeFinished: `DELETE FROM ${T} WHERE id = ANY($1::bigint[]) AND status = $2`,
}));

/** Appends a log line to a running attempt's job, keeping at most `maxLines`; false when no longer owned. */
export async function appendLog(
  db: PostgresContext,
  ref: AttemptRef,
  workerId: string,
  line: string,
  maxLines: number,
  now: number,
): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  return (await db.runner.run(sql(db.tables).appendLog, [maxLines, line, ms(now), id, workerId, ref.attempt])) === 1;
}

/** Replaces a running attempt's job data; false when no longer owned. */
export async function updateData(db: PostgresContext, ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
  const id = toRowId(ref.id);
  if (id === null) return false;
  return (await db.runner.run(sql(db.tables).updateData, [data, ms(now), id, workerId, ref.attempt])) === 1;
}

/** A job's stored log (JSON text or null); undefined when there is no such job. */
export async function getJobLogs(db: PostgresContext, id: string): Promise<string | null | undefined> {
  const rowId = toRowId(id);
  if (rowId === null) return undefined;
  const [row] = await db.runner.all(sql(db.tables).getLogs, [rowId]);
  return row === undefined ? undefined : ((row.logs as string | null) ?? null);
}

/** Deletes the given jobs that are (still) in `status`. Returns how many. */
export async function removeFinishedJobs(db: PostgresContext, ids: string[], status: 'completed' | 'failed'): Promise<number> {
  const valid = ids.filter((id) => toRowId(id) !== null);
  if (valid.length === 0) return 0;
  return db.runner.run(sql(db.tables).removeFinished, [valid, status]);
}
