import { EVENTS_TABLE, FINISH_WAITERS_MARK } from '../../../table-names.constants';
import { StoredEventBatch, WaitedJobs } from '../../queue-storage.interface';
import { jobColumnsOf } from '../../shared/job-columns';
import { toWaitedJobs } from '../../shared/job-row.mapper';
import { toStoredEventBatch } from '../../shared/event-row.mapper';
import { PostgresContext, ms, perSchema, toRowId } from './postgres-sql-fragments';

/**
 * Identity values are handed out when a row is inserted, not when it commits: two writers could commit ids 11 then
 * 10, and a reader between the commits would move its cursor past 10 for ever. Writers therefore hold one
 * transaction-scoped advisory lock (keyed by the table name) from before their insert until their commit, so ids
 * become visible in order. One row per batch of events: rare next to job writes, and only they wait on this lock.
 */
const sql = perSchema(({ T, R, eventsChannel }) => {
  const E = T.replace(/[^.]+$/, EVENTS_TABLE);
  return {
    // The left join keeps the ids no row has (a removed job), with null columns; live jobs are left out.
    waitedJobs: `SELECT waited.id AS waited_id, ${jobColumnsOf('j')}
      FROM unnest($1::bigint[]) AS waited (id) LEFT JOIN ${T} AS j ON j.id = waited.id
      WHERE j.id IS NULL OR j.status IN ('completed', 'failed', 'cancelled')`,
    // The notification (payload: the publisher) wakes the readers of every other process at commit, not at their next poll.
    appendEvents: `INSERT INTO ${E} (origin, created_at, events)
      SELECT $1, $2, $3 FROM (SELECT pg_advisory_xact_lock(hashtext('${E}'))) AS lock,
        (SELECT pg_notify('${eventsChannel}', $1)) AS wake`,
    readEvents: `SELECT id, origin, created_at, events FROM ${E} WHERE id > $1 AND origin <> $3 ORDER BY id LIMIT $2`,
    lastEventId: `SELECT COALESCE(MAX(id), 0) AS id FROM ${E}`,
    pruneEvents: `DELETE FROM ${E} WHERE created_at < $1`,
    pruneReaders: `DELETE FROM ${R} WHERE seen_at < $1`,
    markReader: `INSERT INTO ${R} (origin, seen_at) VALUES ($1, $2) ON CONFLICT (origin) DO UPDATE SET seen_at = excluded.seen_at`,
    // The waiters' heartbeat is no reader of events.
    hasReaders: `SELECT EXISTS (SELECT 1 FROM ${R} WHERE seen_at >= $1 AND origin <> '${FINISH_WAITERS_MARK}') AS found`,
  };
});

/** Of these jobs, the finished ones, and the ids no job has, in one statement. */
export async function getWaitedJobs(db: PostgresContext, ids: string[]): Promise<WaitedJobs> {
  const rowIds = ids.map(toRowId).filter((id): id is string => id !== null);
  if (rowIds.length === 0) return { finished: [], gone: [] };
  return toWaitedJobs(await db.runner.all(sql(db.tables).waitedJobs, [rowIds]));
}

/** Appends one batch of events (one row). */
export async function appendEvents(db: PostgresContext, batch: StoredEventBatch): Promise<void> {
  await db.runner.run(sql(db.tables).appendEvents, [batch.origin, ms(batch.createdAt), batch.events]);
}

/** Batches after a cursor, or (cursor null) the cursor of the newest batch. */
export async function readEvents(
  db: PostgresContext,
  afterId: string | null,
  limit: number,
  origin: string,
): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
  const statements = sql(db.tables);
  if (afterId === null) {
    const [row] = await db.runner.all(statements.lastEventId, []);
    return { batches: [], cursor: String(row?.id ?? 0) };
  }
  const batches = (await db.runner.all(statements.readEvents, [afterId, limit, origin])).map(toStoredEventBatch);
  return { batches, cursor: batches.length > 0 ? batches[batches.length - 1].id! : afterId };
}

/** Deletes batches (and reader heartbeats) older than `before`. */
export async function pruneEvents(db: PostgresContext, before: number): Promise<number> {
  await db.runner.run(sql(db.tables).pruneReaders, [ms(before)]);
  return db.runner.run(sql(db.tables).pruneEvents, [ms(before)]);
}

/** A reader's heartbeat. */
export async function markEventReader(db: PostgresContext, origin: string, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).markReader, [origin, ms(now)]);
}

/** Renews the shared heartbeat of processes waiting for jobs, which turns finish notifications on. */
export async function markFinishWaiters(db: PostgresContext, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).markReader, [FINISH_WAITERS_MARK, ms(now)]);
}

/** Whether a reader's heartbeat is at or after `since`. */
export async function hasEventReaders(db: PostgresContext, since: number): Promise<boolean> {
  const [row] = await db.runner.all(sql(db.tables).hasReaders, [ms(since)]);
  return row?.found === true || row?.found === 't' || Number(row?.found) === 1;
}
