import { QueueLimiterRecord, StoredQueueLimits } from '../../queue-storage.interface';
import { toStoredLimits } from '../../shared/stored-limits';
import { StatementRunner } from '../../shared/statement-runner';
import { Q } from './sqlite-sql-fragments';

/**
 * Creates the queues' rows and records their limiters. A queue declared with a global concurrency only (max null)
 * keeps a limiter another process declared: it only needs the row.
 */
const DECLARE_LIMITS_SQL = `INSERT INTO ${Q} (queue, paused, updated_at, rate_max, rate_duration, group_rate_max, group_rate_duration)
  SELECT j.value ->> 0, 0, ?, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4 FROM json_each(?) AS j WHERE true
  ON CONFLICT (queue) DO UPDATE SET rate_max = coalesce(excluded.rate_max, rate_max),
    rate_duration = coalesce(excluded.rate_duration, rate_duration),
    group_rate_max = coalesce(excluded.group_rate_max, group_rate_max),
    group_rate_duration = coalesce(excluded.group_rate_duration, group_rate_duration), updated_at = excluded.updated_at`;

/** A RateLimitError's pause: a longer pause already in place wins. */
const PAUSE_UNTIL_SQL = `INSERT INTO ${Q} (queue, paused, updated_at, limited_until) VALUES (?, 0, ?, ?)
  ON CONFLICT (queue) DO UPDATE SET limited_until = max(limited_until, excluded.limited_until), updated_at = excluded.updated_at`;

/** When each queue can be claimed again: the end of a used-up rate window, or of a RateLimitError pause. */
const LIMITED_UNTIL_SQL = `SELECT queue, max(limited_until,
    CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max AND window_start + rate_duration > ? THEN window_start + rate_duration
    ELSE 0 END) AS until
  FROM ${Q} WHERE queue IN (SELECT value FROM json_each(?))`;

/** One queue's stored limiters, and when it opens again (see LIMITED_UNTIL_SQL). */
const STORED_LIMITS_SQL = `SELECT rate_max, rate_duration, group_rate_max, group_rate_duration, max(limited_until,
    CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max AND window_start + rate_duration > ? THEN window_start + rate_duration
    ELSE 0 END) AS until
  FROM ${Q} WHERE queue = ?`;

/** Records limiters for every process (see `QueueStorage.declareLimits`). */
export async function declareLimits(runner: StatementRunner, limiters: QueueLimiterRecord[], now: number): Promise<void> {
  if (limiters.length === 0) return;
  const rows = limiters.map(({ queue, max, duration, groupMax, groupDuration }) => [
    queue,
    max,
    duration,
    groupMax ?? null,
    groupDuration ?? null,
  ]);
  await runner.run(DECLARE_LIMITS_SQL, [now, JSON.stringify(rows)]);
}

/** Pauses claims of `queue` until `until` (a longer pause in place is kept). */
export async function pauseUntil(runner: StatementRunner, queue: string, until: number, now: number): Promise<void> {
  await runner.run(PAUSE_UNTIL_SQL, [queue, now, Math.round(until)]);
}

/** Of `queues`, those limited past `now`, with when they open again. */
export async function limitedUntil(runner: StatementRunner, queues: string[], now: number): Promise<Map<string, number>> {
  const rows = await runner.all(LIMITED_UNTIL_SQL, [now, JSON.stringify(queues)]);
  const limited = new Map<string, number>();
  for (const row of rows) if (Number(row.until) > now) limited.set(String(row.queue), Number(row.until));
  return limited;
}

/** The limiters stored for `queue` and when it opens again, or null when it has no row. */
export async function storedLimits(runner: StatementRunner, queue: string, now: number): Promise<StoredQueueLimits | null> {
  const [row] = await runner.all(STORED_LIMITS_SQL, [now, queue]);
  return row ? toStoredLimits(row, now) : null;
}
