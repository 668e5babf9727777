import { AttemptRef } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { T, cappedAppendSql, toRowId } from './sqlite-sql-fragments';

/** The fence every write of a running attempt carries: its owner and attempt number. */
const RUNNING_ATTEMPT = `id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** Appends a line to the job's JSON log; at the cap, the oldest line goes in the same statement. */
const APPEND_LOG_SQL = `UPDATE ${T}
  SET logs = ${cappedAppendSql('logs', '?', '?')}, updated_at = ?
  WHERE ${RUNNING_ATTEMPT}`;

const UPDATE_DATA_SQL = `UPDATE ${T} SET data = ?, updated_at = ? WHERE ${RUNNING_ATTEMPT}`;

const GET_LOGS_SQL = `SELECT logs FROM ${T} WHERE id = ?`;

/** Only jobs still in the outcome that asked for removal: an operator may have retried one meanwhile. */
const REMOVE_FINISHED_SQL = `DELETE FROM ${T} WHERE id IN (SELECT value FROM json_each(?)) AND status = ?`;

/** Appends a log line to a running attempt's job, keeping at most `maxLines`; false when no longer owned. */
export async function appendLog(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  line: string,
  maxLines: number,
  now: number,
): Promise<boolean> {
  return (await runner.run(APPEND_LOG_SQL, [maxLines, line, now, Number(ref.id), workerId, ref.attempt])) === 1;
}

/** Replaces a running attempt's job data; false when no longer owned. */
export async function updateData(runner: StatementRunner, ref: AttemptRef, workerId: string, data: string, now: number): Promise<boolean> {
  return (await runner.run(UPDATE_DATA_SQL, [data, now, Number(ref.id), workerId, ref.attempt])) === 1;
}

/** A job's stored log (JSON text or null); undefined when there is no such job. */
export async function getJobLogs(runner: StatementRunner, id: string): Promise<string | null | undefined> {
  const rowId = toRowId(id);
  if (rowId === null) return undefined;
  const [row] = await runner.all(GET_LOGS_SQL, [rowId]);
  return row === undefined ? undefined : ((row.logs as string | null) ?? null);
}

/** Deletes the given jobs that are (still) in `status`. Returns how many. */
export async function removeFinishedJobs(runner: StatementRunner, ids: string[], status: 'completed' | 'failed'): Promise<number> {
  return runner.run(REMOVE_FINISHED_SQL, [JSON.stringify(ids.map(Number)), status]);
}
