import { JobStatus } from '../../../interfaces/job-info.interface';
import { JobRecord, ProcessorAnnouncementRow, PromoteOutcome, WorkerActivityRow } from '../../queue-storage.interface';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { PARKED_RUN_AT, SCHEDULE_PAUSE_OFFSET } from '../../shared/schedule-pause';
import { StatementRunner } from '../../shared/statement-runner';
import { Q, S, T, toRowId } from './sqlite-sql-fragments';

/**
 * A delayed pending job becomes due now. A flow parent waiting for its children (run_at past the offset) is left
 * alone: running it now would run it before them. The guard and the write are one statement, so a claim cannot
 * slip in between.
 */
const PROMOTE_SQL = `/* promote */ UPDATE ${T} SET run_at = ?, updated_at = ?
  WHERE id = ? AND status = 'pending' AND run_at > ? AND run_at < ${FLOW_WAIT_OFFSET}
  RETURNING status`;

const JOB_STATE_SQL = `SELECT status, run_at FROM ${T} WHERE id = ?`;

/** A paused schedule keeps its next run, pushed past the offset; one already paused or parked is not touched. */
const PAUSE_SCHEDULE_SQL = `UPDATE ${S}
  SET next_run_at = CASE WHEN next_run_at < ${SCHEDULE_PAUSE_OFFSET} THEN next_run_at + ${SCHEDULE_PAUSE_OFFSET} ELSE next_run_at END,
    updated_at = ?
  WHERE queue = ? AND name = ?`;

const RESUME_SCHEDULE_SQL = `UPDATE ${S} SET next_run_at = ?, updated_at = ?
  WHERE queue = ? AND name = ? AND next_run_at >= ${SCHEDULE_PAUSE_OFFSET} AND next_run_at < ${PARKED_RUN_AT}`;

/**
 * An occurrence's key is `<name>@<time>`: the keys of one schedule are the range [name@, nameA) of the
 * (queue, schedule_key) index, '@' and 'A' being neighbours; the digits-only rest keeps out a schedule "name@x".
 */
const LAST_SCHEDULE_RUN_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND schedule_key >= ? AND schedule_key < ? AND substr(schedule_key, length(?) + 1) NOT GLOB '*[^0-9]*'
  ORDER BY id DESC LIMIT 1`;

const ANNOUNCEMENTS_SQL = `SELECT queue, processor_until FROM ${Q} WHERE processor_until > ? ORDER BY queue`;

const RUNNING_BY_WORKER_SQL = `SELECT locked_by, queue, COUNT(*) AS running, MAX(updated_at) AS last_seen FROM ${T}
  WHERE status = 'running' AND locked_by IS NOT NULL GROUP BY locked_by, queue ORDER BY locked_by, queue`;

/** Makes a delayed pending job due at `now`: what the job is (and whether it moved), or null for no such job. */
export async function promoteJob(runner: StatementRunner, id: string, now: number): Promise<PromoteOutcome | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [moved] = await runner.all(PROMOTE_SQL, [now, now, rowId, now]);
  if (moved) return { status: moved.status as JobStatus, runAt: now, promoted: true };
  const [row] = await runner.all(JOB_STATE_SQL, [rowId]);
  return row ? { status: row.status as JobStatus, runAt: Number(row.run_at), promoted: false } : null;
}

/** Pauses a schedule; false when there is none. */
export async function pauseSchedule(runner: StatementRunner, queue: string, name: string, now: number): Promise<boolean> {
  return (await runner.run(PAUSE_SCHEDULE_SQL, [now, queue, name])) === 1;
}

/** Resumes a paused schedule at `nextRunAt`; false when there is none or it is not paused. */
export async function resumeSchedule(
  runner: StatementRunner,
  queue: string,
  name: string,
  nextRunAt: number,
  now: number,
): Promise<boolean> {
  return (await runner.run(RESUME_SCHEDULE_SQL, [nextRunAt, now, queue, name])) === 1;
}

/** The newest job of a schedule, or null. */
export async function lastScheduleRun(runner: StatementRunner, queue: string, name: string): Promise<JobRecord | null> {
  const [row] = await runner.all(LAST_SCHEDULE_RUN_SQL, [queue, `${name}@`, `${name}A`, `${name}@`]);
  return row ? toJobRecord(row) : null;
}

/** Live processor announcements. */
export async function processorAnnouncements(runner: StatementRunner, now: number): Promise<ProcessorAnnouncementRow[]> {
  return (await runner.all(ANNOUNCEMENTS_SQL, [now])).map((row) => ({ queue: String(row.queue), until: Number(row.processor_until) }));
}

/** Running jobs per worker and queue. */
export async function runningByWorker(runner: StatementRunner): Promise<WorkerActivityRow[]> {
  return (await runner.all(RUNNING_BY_WORKER_SQL, [])).map((row) => ({
    workerId: String(row.locked_by),
    queue: String(row.queue),
    running: Number(row.running),
    lastSeen: Number(row.last_seen),
  }));
}
