import { ScheduleOccurrence, ScheduleRecord } from '../../queue-storage.interface';
import { SCHEDULE_COLUMNS } from '../../shared/job-columns';
import { scheduleParams, toScheduleRecord } from '../../shared/job-row.mapper';
import { PARKED_RUN_AT, SCHEDULE_PAUSE_OFFSET } from '../../shared/schedule-pause';
import { StatementRunner } from '../../shared/statement-runner';
import { S, T, newJobValues } from './sqlite-sql-fragments';

/** A changed definition keeps a paused schedule paused (an app re-declaring its schedules at boot must not resume it). */
const UPSERT_SCHEDULE_SQL = `INSERT INTO ${S} (${SCHEDULE_COLUMNS}, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (queue, name) DO UPDATE SET cron = excluded.cron, every_ms = excluded.every_ms,
    timezone = excluded.timezone, data = excluded.data, options = excluded.options,
    next_run_at = CASE WHEN ${S}.next_run_at >= ${SCHEDULE_PAUSE_OFFSET} AND ${S}.next_run_at < ${PARKED_RUN_AT}
      AND excluded.next_run_at < ${SCHEDULE_PAUSE_OFFSET} THEN excluded.next_run_at + ${SCHEDULE_PAUSE_OFFSET} ELSE excluded.next_run_at END,
    updated_at = excluded.updated_at`;

const REMOVE_SCHEDULE_SQL = `DELETE FROM ${S} WHERE queue = ? AND name = ?`;

const LIST_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} ORDER BY queue, name`;

const DUE_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} WHERE next_run_at <= ?`;

/**
 * Inserts one occurrence's job; the unique schedule_key index makes a second insert of the same occurrence,
 * from any process, a no-op.
 */
const ENQUEUE_OCCURRENCE_SQL = `INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, schedule_key, created_at,
   updated_at, job_group)
  VALUES (?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

/** Advances a schedule only from the occurrence we saw (compare-and-set). */
const ADVANCE_SCHEDULE_SQL = `UPDATE ${S} SET next_run_at = ?, updated_at = ?
  WHERE queue = ? AND name = ? AND next_run_at = ?`;

/** Creates or replaces a schedule. */
export async function upsertSchedule(runner: StatementRunner, schedule: ScheduleRecord, now: number): Promise<void> {
  await runner.run(UPSERT_SCHEDULE_SQL, scheduleParams(schedule, now));
}

/** Deletes a schedule; false when there was none. */
export async function removeSchedule(runner: StatementRunner, queue: string, name: string): Promise<boolean> {
  return (await runner.run(REMOVE_SCHEDULE_SQL, [queue, name])) === 1;
}

/** Every schedule. */
export async function listSchedules(runner: StatementRunner): Promise<ScheduleRecord[]> {
  return (await runner.all(LIST_SCHEDULES_SQL, [])).map(toScheduleRecord);
}

/** Schedules whose next occurrence is due at `now`. */
export async function dueSchedules(runner: StatementRunner, now: number): Promise<ScheduleRecord[]> {
  return (await runner.all(DUE_SCHEDULES_SQL, [now])).map(toScheduleRecord);
}

/**
 * Enqueues one occurrence once across all processes, then advances the schedule if nobody else did (two
 * statements: a crash between them is repaired by the next attempt). True when this call inserted the job.
 */
export async function enqueueOccurrence(runner: StatementRunner, occurrence: ScheduleOccurrence, now: number): Promise<boolean> {
  const { schedule, occurrenceAt, job, nextRunAt } = occurrence;
  const scheduleKey = `${schedule.name}@${occurrenceAt}`;
  const inserted = await runner.run(ENQUEUE_OCCURRENCE_SQL, [
    schedule.queue,
    ...newJobValues(job),
    scheduleKey,
    now,
    now,
    job.group ?? null,
  ]);
  await runner.run(ADVANCE_SCHEDULE_SQL, [nextRunAt, now, schedule.queue, schedule.name, schedule.nextRunAt]);
  return inserted === 1;
}
