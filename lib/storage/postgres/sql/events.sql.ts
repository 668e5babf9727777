import { EVENTS_TABLE } from '../../../sqlite-queue.constants';
import { JobRecord, StoredEvent } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { toStoredEvent } from '../../sqlite/sql/events.sql';
import { PostgresContext, ms, perSchema, toRowId } from './postgres-sql-fragments';

/**
 * Identity values are handed out when a row is inserted, not when it commits: two writers could commit ids 11 then
 * 10, and a reader between the commits would move its cursor past 10 for ever. Writers therefore hold one
 * transaction-scoped advisory lock (keyed by the table name) from before their insert until their commit, so ids
 * become visible in order. Event batches are small and rare next to job writes; only they wait on this lock.
 */
const sql = perSchema(({ T }) => {
  const E = T.replace(/[^.]+$/, EVENTS_TABLE);
  return {
    finishedJobs: `SELECT ${JOB_COLUMNS} FROM ${T} WHERE id = ANY($1::bigint[]) AND status IN ('completed', 'failed', 'cancelled')`,
    appendEvents: `INSERT INTO ${E} (origin, queue, job_id, type, attempt, payload, created_at)
      SELECT $1, e.queue, e.job_id, e.type, e.attempt, e.payload, e.created_at
      FROM (SELECT pg_advisory_xact_lock(hashtext('${E}'))) AS lock,
        unnest($2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::bigint[])
          AS e(queue, job_id, type, attempt, payload, created_at)`,
    readEvents: `SELECT id, origin, queue, job_id, type, attempt, payload, created_at FROM ${E} WHERE id > $1 ORDER BY id LIMIT $2`,
    lastEventId: `SELECT COALESCE(MAX(id), 0) AS id FROM ${E}`,
    pruneEvents: `DELETE FROM ${E} WHERE created_at < $1`,
  };
});

/** Of these jobs, the finished ones, in one statement. */
export async function getFinishedJobs(db: PostgresContext, ids: string[]): Promise<JobRecord[]> {
  const rowIds = ids.map(toRowId).filter((id): id is string => id !== null);
  if (rowIds.length === 0) return [];
  return (await db.runner.all(sql(db.tables).finishedJobs, [rowIds])).map(toJobRecord);
}

/** Appends events of one origin in one statement. */
export async function appendEvents(db: PostgresContext, events: StoredEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.runner.run(sql(db.tables).appendEvents, [
    events[0].origin,
    events.map((event) => event.queue),
    events.map((event) => event.jobId),
    events.map((event) => event.type),
    events.map((event) => event.attempt),
    events.map((event) => event.payload),
    events.map((event) => ms(event.createdAt)),
  ]);
}

/** Events after a cursor, or (cursor null) the cursor of the newest event. */
export async function readEvents(
  db: PostgresContext,
  afterId: string | null,
  limit: number,
): Promise<{ events: StoredEvent[]; cursor: string }> {
  const statements = sql(db.tables);
  if (afterId === null) {
    const [row] = await db.runner.all(statements.lastEventId, []);
    return { events: [], cursor: String(row?.id ?? 0) };
  }
  const events = (await db.runner.all(statements.readEvents, [afterId, limit])).map(toStoredEvent);
  return { events, cursor: events.length > 0 ? events[events.length - 1].id! : afterId };
}

/** Deletes events older than `before`. */
export function pruneEvents(db: PostgresContext, before: number): Promise<number> {
  return db.runner.run(sql(db.tables).pruneEvents, [ms(before)]);
}
