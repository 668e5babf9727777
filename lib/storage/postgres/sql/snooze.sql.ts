import { AttemptRef } from '../../queue-storage.interface';
import { PostgresContext, REUSED, cappedAppendSql, ms, perSchema, toRowId } from './postgres-sql-fragments';
import { appendRunSql } from './run-history.sql';

/** See the SQLite file of the same name. Params: run_at, max log lines, delay, now, id, worker, attempt, bound, start,
 * batch size. */
const sql = perSchema(({ T }) => ({
  snooze: `UPDATE ${T}
      SET status = 'pending', attempts = attempts - 1, run_at = $1, snoozes = snoozes + 1,
          logs = ${cappedAppendSql('logs', '$2', "'Snoozed for ' || $3::text || ' ms (snooze ' || (snoozes + 1) || ')'")},
          started_at = coalesce($9::bigint, started_at), ${appendRunSql('$4', "'snoozed'", 'coalesce($9::bigint, started_at)', 'coalesce($10::int, run_batch)')},
          locked_by = NULL, lease_until = NULL, updated_at = $4
      WHERE id = $5 AND locked_by = $6 AND attempts = $7 AND status = 'running' AND snoozes < $8
      RETURNING id`,
  stillOurs: `SELECT 1 AS owned FROM ${T} WHERE id = $1 AND locked_by = $2 AND attempts = $3 AND status = 'running'`,
}));

/** See `SnoozeStorage.snooze`. */
export async function snoozeJob(
  db: PostgresContext,
  ref: AttemptRef,
  workerId: string,
  runAt: number,
  delay: number,
  maxLines: number,
  maxSnoozes: number,
  now: number,
): Promise<'snoozed' | 'exhausted' | 'lost'> {
  const id = toRowId(ref.id);
  if (id === null) return 'lost';
  const statements = sql(db.tables);
  const rows = await db.runner.all(
    statements.snooze,
    [
      ms(runAt),
      maxLines,
      String(Math.round(delay)),
      ms(now),
      id,
      workerId,
      ref.attempt,
      maxSnoozes,
      ref.startedAt === undefined ? null : ms(ref.startedAt),
      ref.batch ?? null,
    ],
    REUSED,
  );
  if (rows.length > 0) return 'snoozed';
  return (await db.runner.all(statements.stillOurs, [id, workerId, ref.attempt], REUSED)).length > 0 ? 'exhausted' : 'lost';
}
