import { JobStatus } from '../../../interfaces/job-info.interface';
import { JobRecord, ProcessorAnnouncementRow, PromoteOutcome, WorkerActivityRow } from '../../queue-storage.interface';
import { FLOW_WAIT_OFFSET } from '../../shared/flow-wait';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { PARKED_RUN_AT, SCHEDULE_PAUSE_OFFSET } from '../../shared/schedule-pause';
import { PostgresContext, ms, notifyIfAny, perSchema, toRowId } from './postgres-sql-fragments';

const sql = perSchema((tables) => {
  const { T, Q, S } = tables;
  return {
    /**
     * A delayed pending job becomes due now (a waiting flow parent is left alone: it would run before its
     * children). The row is locked first, so the state reported is the one the decision was made on; the pollers
     * are woken when it moved.
     */
    promote: `WITH target AS (SELECT id, status, run_at FROM ${T} WHERE id = $2 FOR UPDATE),
      promoted AS (
        UPDATE ${T} AS t SET run_at = $1, updated_at = $1
        FROM target WHERE t.id = target.id AND target.status = 'pending' AND target.run_at > $1 AND target.run_at < ${FLOW_WAIT_OFFSET}
        RETURNING t.id
      ),
      ${notifyIfAny(tables, 'promoted')}
      SELECT status, run_at, (SELECT count(*) FROM promoted) AS promoted FROM target WHERE (SELECT count(*) FROM hint) >= 0`,

    /** A paused schedule keeps its next run, pushed past the offset; one already paused or parked is not touched. */
    pauseSchedule: `UPDATE ${S}
      SET next_run_at = CASE WHEN next_run_at < ${SCHEDULE_PAUSE_OFFSET} THEN next_run_at + ${SCHEDULE_PAUSE_OFFSET} ELSE next_run_at END,
        updated_at = $1
      WHERE queue = $2 AND name = $3`,

    resumeSchedule: `UPDATE ${S} SET next_run_at = $1, updated_at = $2
      WHERE queue = $3 AND name = $4 AND next_run_at >= ${SCHEDULE_PAUSE_OFFSET} AND next_run_at < ${PARKED_RUN_AT}`,

    /**
     * A schedule's occurrence keys are `<name>@<digits>`: compared as bytes (a collation may order '@' anywhere),
     * among the queue's keyed rows of the (queue, schedule_key) index.
     */
    lastScheduleRun: `SELECT ${JOB_COLUMNS} FROM ${T}
      WHERE queue = $1 AND schedule_key IS NOT NULL AND left(schedule_key, length($2)) = $2
        AND substr(schedule_key, length($2) + 1) ~ '^[0-9]+$'
      ORDER BY id DESC LIMIT 1`,

    announcements: `SELECT queue, processor_until FROM ${Q} WHERE processor_until > $1 ORDER BY queue`,

    runningByWorker: `SELECT locked_by, queue, count(*) AS running, max(updated_at) AS last_seen FROM ${T}
      WHERE status = 'running' AND locked_by IS NOT NULL GROUP BY locked_by, queue ORDER BY locked_by, queue`,
  };
});

/** Makes a delayed pending job due at `now`: what the job is (and whether it moved), or null for no such job. */
export async function promoteJob(db: PostgresContext, id: string, now: number): Promise<PromoteOutcome | null> {
  const rowId = toRowId(id);
  if (rowId === null) return null;
  const [row] = await db.runner.all(sql(db.tables).promote, [ms(now), rowId]);
  if (!row) return null;
  const promoted = Number(row.promoted) > 0;
  return { status: row.status as JobStatus, runAt: promoted ? ms(now) : Number(row.run_at), promoted };
}

/** Pauses a schedule; false when there is none. */
export async function pauseSchedule(db: PostgresContext, queue: string, name: string, now: number): Promise<boolean> {
  return (await db.runner.run(sql(db.tables).pauseSchedule, [ms(now), queue, name])) === 1;
}

/** Resumes a paused schedule at `nextRunAt`; false when there is none or it is not paused. */
export async function resumeSchedule(db: PostgresContext, queue: string, name: string, nextRunAt: number, now: number): Promise<boolean> {
  return (await db.runner.run(sql(db.tables).resumeSchedule, [ms(nextRunAt), ms(now), queue, name])) === 1;
}

/** The newest job of a schedule, or null. */
export async function lastScheduleRun(db: PostgresContext, queue: string, name: string): Promise<JobRecord | null> {
  const [row] = await db.runner.all(sql(db.tables).lastScheduleRun, [queue, `${name}@`]);
  return row ? toJobRecord(row) : null;
}

/** Live processor announcements. */
export async function processorAnnouncements(db: PostgresContext, now: number): Promise<ProcessorAnnouncementRow[]> {
  return (await db.runner.all(sql(db.tables).announcements, [ms(now)])).map((row) => ({
    queue: String(row.queue),
    until: Number(row.processor_until),
  }));
}

/** Running jobs per worker and queue. */
export async function runningByWorker(db: PostgresContext): Promise<WorkerActivityRow[]> {
  return (await db.runner.all(sql(db.tables).runningByWorker, [])).map((row) => ({
    workerId: String(row.locked_by),
    queue: String(row.queue),
    running: Number(row.running),
    lastSeen: Number(row.last_seen),
  }));
}
