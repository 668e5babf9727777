import { AttemptRef } from '../../queue-storage.interface';
import { StatementRunner } from '../../shared/statement-runner';
import { appendRunSql } from './run-history.sql';
import { T, cappedAppendSql } from './sqlite-sql-fragments';

/** The fence every write of a running attempt carries: its owner and attempt number. */
const RUNNING_ATTEMPT = `id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/**
 * Back to pending, unspent (attempts - 1, so the next claim runs the same attempt number), due at `run_at`, with the
 * snooze counted and a line in the job's log (at the cap the oldest goes, as `job.log` does). started_at stays: a
 * debounced job that ran once is not replaced by a later add (the debounce index takes unstarted jobs only).
 * The snooze is a record of the run history, with the start the handler had (the claim left started_at unset) and the
 * batch size the attempt carries, else the one stored by an earlier write of the run. Params: run_at, max log lines,
 * delay, start, start, now, batch, now, then the fence, then the bound.
 */
const SNOOZE_SQL = `/* snooze */ UPDATE ${T}
  SET status = 'pending', attempts = attempts - 1, run_at = ?, snoozes = snoozes + 1,
      logs = ${cappedAppendSql('logs', '?', "'Snoozed for ' || ? || ' ms (snooze ' || (snoozes + 1) || ')'")},
      started_at = coalesce(?, started_at), ${appendRunSql('?', "'snoozed'", 'coalesce(?, started_at)', 'coalesce(?, run_batch)')}, locked_by = NULL, lease_until = NULL, updated_at = ?
  WHERE ${RUNNING_ATTEMPT} AND snoozes < ?
  RETURNING id`;

/** Whether the attempt is still ours: tells a snooze past the bound from a lost one. */
const STILL_OURS_SQL = `SELECT 1 AS owned FROM ${T} WHERE ${RUNNING_ATTEMPT}`;

/** See `SnoozeStorage.snooze`. */
export async function snoozeJob(
  runner: StatementRunner,
  ref: AttemptRef,
  workerId: string,
  runAt: number,
  delay: number,
  maxLines: number,
  maxSnoozes: number,
  now: number,
): Promise<'snoozed' | 'exhausted' | 'lost'> {
  const fence = [Number(ref.id), workerId, ref.attempt];
  const rows = await runner.all(SNOOZE_SQL, [
    Math.round(runAt),
    maxLines,
    String(Math.round(delay)),
    ref.startedAt ?? null,
    ref.startedAt ?? null,
    now,
    ref.batch ?? null,
    now,
    ...fence,
    maxSnoozes,
  ]);
  if (rows.length > 0) return 'snoozed';
  return (await runner.all(STILL_OURS_SQL, fence)).length > 0 ? 'exhausted' : 'lost';
}
