import { NewJobRecord, ScheduleOccurrence, ScheduleRecord } from '../../queue-storage.interface';
import { SCHEDULE_COLUMNS } from '../../shared/job-columns';
import { scheduleParams, toScheduleRecord } from '../../shared/job-row.mapper';
import { PARKED_RUN_AT, SCHEDULE_PAUSE_OFFSET } from '../../shared/schedule-pause';
import { PostgresContext, ms, notifyIfAny, perSchema } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T, S } = tables;
  return {
    // A changed definition keeps a paused schedule paused (an app re-declaring its schedules at boot must not resume it).
    // The same definition changes nothing: processes booting together each declare it with their own first run, and
    // the last one must not move a schedule the first one's scheduler already advanced onto a second grid.
    upsertSchedule: `INSERT INTO ${S} AS s (${SCHEDULE_COLUMNS}, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
      ON CONFLICT (queue, name) DO UPDATE SET cron = excluded.cron, every_ms = excluded.every_ms,
        timezone = excluded.timezone, data = excluded.data, options = excluded.options,
        next_run_at = CASE WHEN s.next_run_at >= ${SCHEDULE_PAUSE_OFFSET} AND s.next_run_at < ${PARKED_RUN_AT}
          AND excluded.next_run_at < ${SCHEDULE_PAUSE_OFFSET} THEN excluded.next_run_at + ${SCHEDULE_PAUSE_OFFSET} ELSE excluded.next_run_at END,
        updated_at = excluded.updated_at
      WHERE s.cron IS DISTINCT FROM excluded.cron OR s.every_ms IS DISTINCT FROM excluded.every_ms
        OR s.timezone IS DISTINCT FROM excluded.timezone OR s.data IS DISTINCT FROM excluded.data
        OR s.options IS DISTINCT FROM excluded.options`,

    removeSchedule: `DELETE FROM ${S} WHERE queue = $1 AND name = $2`,

    listSchedules: `SELECT ${SCHEDULE_COLUMNS} FROM ${S} ORDER BY queue, name`,

    dueSchedules: `SELECT ${SCHEDULE_COLUMNS} FROM ${S} WHERE next_run_at <= $1`,

    /**
     * Advances the schedule from the occurrence we saw (compare-and-set) and, only when that advance is ours, inserts
     * the occurrence's job, in one statement. A writer holding a stale read (its occurrence already enqueued by
     * another process, which advanced the schedule) inserts nothing even once that job is gone: the unique
     * schedule_key index alone let it enqueue the occurrence a second time after retention removed the first job.
     * Two writers of the same read: the second's UPDATE waits for the first's row lock, then matches no row.
     */
    enqueueOccurrence: `WITH advanced AS (
        UPDATE ${S} SET next_run_at = $12, updated_at = $10
        WHERE queue = $1 AND name = $11 AND next_run_at = $13
        RETURNING 1
      ),
      inserted AS (
        INSERT INTO ${T}
          (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, schedule_key,
           created_at, updated_at, job_group)
        SELECT $1, 'pending', $2, $3, $4, 0, $5, $6, $7, $8, $14, $15, $9, $10, $10, $16
        WHERE EXISTS (SELECT 1 FROM advanced)
        ON CONFLICT DO NOTHING
        RETURNING run_at
      ),
      ${notifyIfAny(tables, 'inserted WHERE run_at <= $10')}
      SELECT (SELECT count(*) FROM inserted) AS inserted, (SELECT count(*) FROM hint) AS hinted`,

    // A run made by hand: inserted while the schedule exists, whatever its next run; the run key is unique.
    enqueueScheduleRun: `WITH inserted AS (
        INSERT INTO ${T}
          (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, schedule_key,
           created_at, updated_at, job_group)
        SELECT $1, 'pending', $2, $3, $4, 0, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13
        WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = $1 AND name = $14)
        ON CONFLICT DO NOTHING
        RETURNING id, run_at
      ),
      ${notifyIfAny(tables, 'inserted WHERE run_at <= $12')}
      SELECT (SELECT id FROM inserted) AS id, (SELECT count(*) FROM hint) AS hinted`,
  };
});

/** Creates or replaces a schedule. */
export async function upsertSchedule(db: PostgresContext, schedule: ScheduleRecord, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).upsertSchedule, scheduleParams({ ...schedule, nextRunAt: ms(schedule.nextRunAt) }, ms(now)));
}

/** Deletes a schedule; false when there was none. */
export async function removeSchedule(db: PostgresContext, queue: string, name: string): Promise<boolean> {
  return (await db.runner.run(sql(db.tables).removeSchedule, [queue, name])) === 1;
}

/** Every schedule. */
export async function listSchedules(db: PostgresContext): Promise<ScheduleRecord[]> {
  return (await db.runner.all(sql(db.tables).listSchedules, [])).map(toScheduleRecord);
}

/** Schedules whose next occurrence is due at `now`. */
export async function dueSchedules(db: PostgresContext, now: number): Promise<ScheduleRecord[]> {
  return (await db.runner.all(sql(db.tables).dueSchedules, [ms(now)])).map(toScheduleRecord);
}

/** Enqueues one occurrence exactly once across all processes and advances the schedule. True when this call inserted the job. */
export async function enqueueOccurrence(db: PostgresContext, occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
  const { schedule, occurrenceAt, job, nextRunAt } = occurrence;
  const [row] = await db.runner.all(sql(db.tables).enqueueOccurrence, [
    schedule.queue,
    job.data,
    job.priority,
    ms(job.runAt),
    job.maxAttempts,
    job.backoff,
    job.timeout,
    job.key,
    `${schedule.name}@${occurrenceAt}`,
    ms(now),
    schedule.name,
    ms(nextRunAt),
    ms(schedule.nextRunAt),
    job.name ?? null,
    job.removeOn ?? null,
    job.group ?? null,
  ]);
  return Number(row?.inserted ?? 0) === 1;
}

/** See `ScheduleStorage.enqueueScheduleRun`. */
export async function enqueueScheduleRun(
  db: PostgresContext,
  queue: string,
  name: string,
  runKey: string,
  job: NewJobRecord,
  now: number,
): Promise<string | null> {
  const [row] = await db.runner.all(sql(db.tables).enqueueScheduleRun, [
    queue,
    job.data,
    job.priority,
    ms(job.runAt),
    job.maxAttempts,
    job.backoff,
    job.timeout,
    job.key,
    job.name ?? null,
    job.removeOn ?? null,
    runKey,
    ms(now),
    job.group ?? null,
    name,
  ]);
  return row?.id === null || row?.id === undefined ? null : String(row.id);
}
