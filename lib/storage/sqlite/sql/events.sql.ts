import { EVENT_READERS_TABLE, EVENTS_TABLE, FINISH_WAITERS_MARK } from '../../../table-names.constants';
import { StoredEventBatch, WaitedJobs } from '../../queue-storage.interface';
import { jobColumnsOf } from '../../shared/job-columns';
import { toStoredEventBatch } from '../../shared/event-row.mapper';
import { toWaitedJobs } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { T, toRowId } from './sqlite-sql-fragments';

const E = EVENTS_TABLE;

/**
 * The ids travel as one JSON array: one statement, and one SQL text, whatever the number of jobs waited for. The
 * left join keeps the ids no row has (a removed job), with null columns; live jobs are left out.
 */
const WAITED_JOBS_SQL = `SELECT waited.value AS waited_id, ${jobColumnsOf('j')}
  FROM json_each(?) AS waited LEFT JOIN ${T} AS j ON j.id = waited.value
  WHERE j.id IS NULL OR j.finished_at IS NOT NULL`;

const APPEND_EVENTS_SQL = `INSERT INTO ${E} (origin, created_at, events) VALUES (?, ?, ?)`;

const READ_EVENTS_SQL = `SELECT id, origin, created_at, events FROM ${E} WHERE id > ? AND origin <> ? ORDER BY id LIMIT ?`;

/** sqlite_sequence keeps the last id handed out even when pruning emptied the table. */
const LAST_EVENT_ID_SQL = `SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${E}'), 0) AS id`;

const PRUNE_EVENTS_SQL = `DELETE FROM ${E} WHERE created_at < ?`;

const PRUNE_READERS_SQL = `DELETE FROM ${EVENT_READERS_TABLE} WHERE seen_at < ?`;

const MARK_READER_SQL = `INSERT INTO ${EVENT_READERS_TABLE} (origin, seen_at) VALUES (?, ?)
  ON CONFLICT (origin) DO UPDATE SET seen_at = excluded.seen_at`;

// The finish waiters' heartbeat shares the table: it is no reader of events.
const HAS_READERS_SQL = `SELECT EXISTS (SELECT 1 FROM ${EVENT_READERS_TABLE} WHERE seen_at >= ? AND origin <> '${FINISH_WAITERS_MARK}') AS found`;

/** Of these jobs, the finished ones, and the ids no job has. */
export async function getWaitedJobs(runner: StatementRunner, ids: string[]): Promise<WaitedJobs> {
  const rowIds = ids.map(toRowId).filter((id): id is number => id !== null);
  if (rowIds.length === 0) return { finished: [], gone: [] };
  return toWaitedJobs(await runner.all(WAITED_JOBS_SQL, [JSON.stringify(rowIds)]));
}

/** Appends one batch of events (one row). */
export async function appendEvents(runner: StatementRunner, batch: StoredEventBatch): Promise<void> {
  await runner.run(APPEND_EVENTS_SQL, [batch.origin, batch.createdAt, batch.events]);
}

/** Batches after a cursor, or (cursor null) the cursor of the newest batch. */
export async function readEvents(
  runner: StatementRunner,
  afterId: string | null,
  limit: number,
  origin: string,
): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
  if (afterId === null) {
    const [row] = await runner.all(LAST_EVENT_ID_SQL, []);
    return { batches: [], cursor: String(row?.id ?? 0) };
  }
  const batches = (await runner.all(READ_EVENTS_SQL, [Number(afterId), origin, limit])).map(toStoredEventBatch);
  return { batches, cursor: batches.length > 0 ? batches[batches.length - 1].id! : afterId };
}

/** Deletes batches (and reader heartbeats) older than `before`. */
export async function pruneEvents(runner: StatementRunner, before: number): Promise<number> {
  await runner.run(PRUNE_READERS_SQL, [before]);
  return runner.run(PRUNE_EVENTS_SQL, [before]);
}

/** A reader's heartbeat. */
export async function markEventReader(runner: StatementRunner, origin: string, now: number): Promise<void> {
  await runner.run(MARK_READER_SQL, [origin, now]);
}

/**
 * Renews the shared heartbeat of processes waiting for jobs to finish: while it is fresh, completions keep the rows
 * retention would delete (a waiter reads the finished row).
 */
export async function markFinishWaiters(runner: StatementRunner, now: number): Promise<void> {
  await runner.run(MARK_READER_SQL, [FINISH_WAITERS_MARK, now]);
}

/** Whether a reader's heartbeat is at or after `since`. */
export async function hasEventReaders(runner: StatementRunner, since: number): Promise<boolean> {
  const [row] = await runner.all(HAS_READERS_SQL, [since]);
  return Number(row?.found ?? 0) === 1;
}
