import { EVENTS_TABLE } from '../../../sqlite-queue.constants';
import { JobRecord, StoredEvent } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { StorageRow, toJobRecord } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { T, toRowId } from './sqlite-sql-fragments';

const E = EVENTS_TABLE;

/** The ids travel as one JSON array: one statement, and one SQL text, whatever the number of jobs waited for. */
const FINISHED_JOBS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE id IN (SELECT value FROM json_each(?)) AND finished_at IS NOT NULL`;

/** Events travel as one JSON array of arrays: one statement and one SQL text for any batch. */
const APPEND_EVENTS_SQL = `INSERT INTO ${E} (origin, queue, job_id, type, attempt, payload, created_at)
  SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5, value ->> 6 FROM json_each(?)`;

const READ_EVENTS_SQL = `SELECT id, origin, queue, job_id, type, attempt, payload, created_at FROM ${E} WHERE id > ? ORDER BY id LIMIT ?`;

/** sqlite_sequence keeps the last id handed out even when pruning emptied the table. */
const LAST_EVENT_ID_SQL = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${E}'), 0) AS id`;

const PRUNE_EVENTS_SQL = `DELETE FROM ${E} WHERE created_at < ?`;

/** Of these jobs, the finished ones. */
export async function getFinishedJobs(runner: StatementRunner, ids: string[]): Promise<JobRecord[]> {
  const rowIds = ids.map(toRowId).filter((id): id is number => id !== null);
  if (rowIds.length === 0) return [];
  return (await runner.all(FINISHED_JOBS_SQL, [JSON.stringify(rowIds)])).map(toJobRecord);
}

/** Appends events in one statement. */
export async function appendEvents(runner: StatementRunner, events: StoredEvent[]): Promise<void> {
  if (events.length === 0) return;
  const rows = events.map((event) => [event.origin, event.queue, event.jobId, event.type, event.attempt, event.payload, event.createdAt]);
  await runner.run(APPEND_EVENTS_SQL, [JSON.stringify(rows)]);
}

/** Events after a cursor, or (cursor null) the cursor of the newest event. */
export async function readEvents(
  runner: StatementRunner,
  afterId: string | null,
  limit: number,
): Promise<{ events: StoredEvent[]; cursor: string }> {
  if (afterId === null) {
    const [row] = await runner.all(LAST_EVENT_ID_SQL, []);
    return { events: [], cursor: String(row?.id ?? 0) };
  }
  const events = (await runner.all(READ_EVENTS_SQL, [Number(afterId), limit])).map(toStoredEvent);
  return { events, cursor: events.length > 0 ? events[events.length - 1].id! : afterId };
}

/** Deletes events older than `before`. */
export function pruneEvents(runner: StatementRunner, before: number): Promise<number> {
  return runner.run(PRUNE_EVENTS_SQL, [before]);
}

/** A stored event row, on either backend. */
export function toStoredEvent(row: StorageRow): StoredEvent {
  return {
    id: String(row.id),
    origin: String(row.origin),
    queue: String(row.queue),
    jobId: String(row.job_id),
    type: String(row.type),
    attempt: Number(row.attempt),
    payload: row.payload === null || row.payload === undefined ? null : String(row.payload),
    createdAt: Number(row.created_at),
  };
}
