import { AttemptRef, Completion } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { appendRunSql } from './run-history.sql';
import { T } from './sqlite-sql-fragments';

/**
 * Completes many attempts in one statement, each fenced by its own attempt number. Returns the ids that were
 * still ours. The unary + keeps the planner off the owner index and off the running index: walking the batch and
 * looking each row up by id is O(batch), walking every running row against the batch is O(running x batch). The
 * `+status` matters once the file has statistics (an operator ran ANALYZE or `PRAGMA optimize`): with them SQLite
 * chose the running index, 4x the CPU per job (bench/row-layout.js). It keeps `locked_by`: the completed row names
 * the process that ran it (`JobRun.owner`), at no write more (no index holds the column).
 */
export const COMPLETE_MANY_SQL = `/* complete */ UPDATE ${T}
  SET status = 'completed', result = j.value ->> 2, finished_at = ?, updated_at = ?, lease_until = NULL
  FROM json_each(?) AS j
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.locked_by = ? AND +${T}.status = 'running'
  RETURNING ${T}.id`;

/** A failed attempt that runs again; its run is recorded (the completion above records none: the row is its own). */
const RETRY_SQL = `UPDATE ${T}
  SET status = 'pending', error = ?, run_at = ?, updated_at = ?, ${appendRunSql('?', "'retried'")}, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

const FAIL_SQL = `UPDATE ${T}
  SET status = 'failed', error = ?, finished_at = ?, updated_at = ?, ${appendRunSql('?', "'failed'")}, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

const UPDATE_PROGRESS_SQL = `UPDATE ${T} SET progress = ?, updated_at = ?
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** Marks attempts completed; the ids this worker still owned. Hot path. */
export async function completeJobs(
  runner: StatementRunner,
  completions: Completion[],
  workerId: string,
  now: number,
): Promise<Set<string>> {
  const items = JSON.stringify(completions.map(({ ref, result }) => [Number(ref.id), ref.attempt, result]));
  const rows = await runner.all(COMPLETE_MANY_SQL, [now, now, items, workerId]);
  return new Set(rows.map((row) => String(row.id)));
}

/** Puts an attempt back to pending until `runAt`; false when no longer owned. */
export async function retryJob(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  error: string,
  runAt: number,
  now: number,
): Promise<boolean> {
  return (await runner.run(RETRY_SQL, [error, runAt, now, now, Number(ref.id), workerId, ref.attempt])) === 1;
}

/** Marks an attempt failed for good; false when no longer owned. */
export async function failJob(runner: StatementRunner, ref: AttemptRef, workerId: string, error: string, now: number): Promise<boolean> {
  return (await runner.run(FAIL_SQL, [error, now, now, now, Number(ref.id), workerId, ref.attempt])) === 1;
}

/** Stores the progress of a running attempt; false when no longer owned. */
export async function updateProgress(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  progress: string,
  now: number,
): Promise<boolean> {
  return (await runner.run(UPDATE_PROGRESS_SQL, [progress, now, Number(ref.id), workerId, ref.attempt])) === 1;
}
