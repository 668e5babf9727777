import { NewJobRecord, ScheduleOccurrence, ScheduleRecord } from '../../queue-storage.interface';
import { SCHEDULE_COLUMNS } from '../../shared/job-columns';
import { scheduleParams, toScheduleRecord } from '../../shared/job-row.mapper';
import { PARKED_RUN_AT, SCHEDULE_PAUSE_OFFSET } from '../../shared/schedule-pause';
import { StatementRunner } from '../../shared/statement-runner';
import { S, T, newJobValues } from './sqlite-sql-fragments';

/**
 * A changed definition keeps a paused schedule paused (an app re-declaring its schedules at boot must not resume it).
 * The same definition changes nothing: processes booting together each declare it with their own first run, and the
 * last one must not move a schedule the first one's scheduler already advanced onto a second grid.
 */
const UPSERT_SCHEDULE_SQL = `INSERT INTO ${S} (${SCHEDULE_COLUMNS}, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (queue, name) DO UPDATE SET cron = excluded.cron, every_ms = excluded.every_ms,
    timezone = excluded.timezone, data = excluded.data, options = excluded.options,
    next_run_at = CASE WHEN ${S}.next_run_at >= ${SCHEDULE_PAUSE_OFFSET} AND ${S}.next_run_at < ${PARKED_RUN_AT}
      AND excluded.next_run_at < ${SCHEDULE_PAUSE_OFFSET} THEN excluded.next_run_at + ${SCHEDULE_PAUSE_OFFSET} ELSE excluded.next_run_at END,
    updated_at = excluded.updated_at
  WHERE ${S}.cron IS NOT excluded.cron OR ${S}.every_ms IS NOT excluded.every_ms OR ${S}.timezone IS NOT excluded.timezone
    OR ${S}.data IS NOT excluded.data OR ${S}.options IS NOT excluded.options`;

const REMOVE_SCHEDULE_SQL = `DELETE FROM ${S} WHERE queue = ? AND name = ?`;

const LIST_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} ORDER BY queue, name`;

const DUE_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} WHERE next_run_at <= ?`;

/**
 * Inserts one occurrence's job while the schedule is still at the occurrence we read; the unique schedule_key index
 * makes a second insert of the same occurrence, from any process, a no-op. The condition makes a writer holding a
 * stale read (another process enqueued that occurrence and advanced the schedule) insert nothing, even once that job
 * is gone: the index alone let it enqueue the occurrence a second time after retention removed the first job.
 * (`WHERE` before `ON CONFLICT` is what SQLite needs to parse an upsert of a SELECT.)
 */
const ENQUEUE_OCCURRENCE_SQL = `INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, schedule_key, created_at,
   updated_at, job_group)
  SELECT ?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
  WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = ? AND name = ? AND next_run_at = ?)
  ON CONFLICT DO NOTHING`;

/** A run made by hand: inserted while the schedule exists, whatever its next run; the run key is unique. */
const ENQUEUE_SCHEDULE_RUN_SQL = `INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, schedule_key, created_at,
   updated_at, job_group)
  SELECT ?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
  WHERE EXISTS (SELECT 1 FROM ${S} WHERE queue = ? AND name = ?)
  ON CONFLICT DO NOTHING
  RETURNING id`;

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
 * Enqueues one occurrence once across all processes, unless the schedule moved on since it was read, then advances
 * the schedule if nobody else did. True when this call inserted the job.
 *
 * Two statements, where PostgreSQL's is one: SQLite has no data-modifying CTE, so one statement writing both tables
 * would take an INSTEAD OF trigger on a view (a schema step), and the module's connection never holds a transaction
 * open (docs/architecture.md, "No transactions"). Between the two, the occurrence is enqueued and the schedule not
 * yet advanced. A writer holding the same read (another process's tick, or the next tick after a crash or a failed
 * advance) is refused by the unique schedule_key index while that job exists, and advances the schedule itself: the
 * usual case, repaired. If the job has run and been removed in that gap (`removeOnComplete`, retention), nothing
 * refuses the writer and the occurrence is enqueued a second time. Inserting first keeps the gap's failure a
 * duplicate (at least once); advancing first would make it a lost occurrence whenever a crash falls in the gap.
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
    schedule.queue,
    schedule.name,
    schedule.nextRunAt,
  ]);
  await runner.run(ADVANCE_SCHEDULE_SQL, [nextRunAt, now, schedule.queue, schedule.name, schedule.nextRunAt]);
  return inserted === 1;
}

/** See `ScheduleStorage.enqueueScheduleRun`. */
export async function enqueueScheduleRun(
  runner: StatementRunner,
  queue: string,
  name: string,
  runKey: string,
  job: NewJobRecord,
  now: number,
): Promise<string | null> {
  const [row] = await runner.all(ENQUEUE_SCHEDULE_RUN_SQL, [queue, ...newJobValues(job), runKey, now, now, job.group ?? null, queue, name]);
  return row ? String(row.id) : null;
}
