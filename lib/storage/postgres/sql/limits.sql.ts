import { QueueLimiterRecord, StoredQueueLimits } from '../../queue-storage.interface';
import { toStoredLimits } from '../../shared/stored-limits';
import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

const sql = perSchema(({ Q }) => ({
  /**
   * Creates the queues' rows (a limited claim locks them) and records their limiters. A queue declared with a global
   * concurrency only (max null) keeps a limiter another process declared. In queue order, like the claim's locks.
   */
  declareLimits: `INSERT INTO ${Q} AS q (queue, paused, updated_at, rate_max, rate_duration, group_rate_max, group_rate_duration)
      SELECT queue, false, $1, rate_max, rate_duration, group_rate_max, group_rate_duration
      FROM unnest($2::text[], $3::int[], $4::bigint[], $5::int[], $6::bigint[])
        AS d(queue, rate_max, rate_duration, group_rate_max, group_rate_duration) ORDER BY queue
      ON CONFLICT (queue) DO UPDATE SET rate_max = coalesce(excluded.rate_max, q.rate_max),
        rate_duration = coalesce(excluded.rate_duration, q.rate_duration),
        group_rate_max = coalesce(excluded.group_rate_max, q.group_rate_max),
        group_rate_duration = coalesce(excluded.group_rate_duration, q.group_rate_duration), updated_at = excluded.updated_at`,
  /** A RateLimitError's pause: a longer pause already in place wins. */
  pauseUntil: `INSERT INTO ${Q} AS q (queue, paused, updated_at, limited_until) VALUES ($1, false, $2, $3)
      ON CONFLICT (queue) DO UPDATE SET limited_until = GREATEST(q.limited_until, excluded.limited_until), updated_at = excluded.updated_at`,
  /** When each queue can be claimed again: the end of a used-up rate window, or of a RateLimitError pause. */
  limitedUntil: `SELECT queue, GREATEST(limited_until,
        CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max AND window_start + rate_duration > $1
        THEN window_start + rate_duration ELSE 0 END) AS until
      FROM ${Q} WHERE queue = ANY($2::text[])`,
  /** One queue's stored limiters, and when it opens again (as limitedUntil). */
  storedLimits: `SELECT rate_max, rate_duration, group_rate_max, group_rate_duration, GREATEST(limited_until,
        CASE WHEN rate_max IS NOT NULL AND window_count >= rate_max AND window_start + rate_duration > $1
        THEN window_start + rate_duration ELSE 0 END) AS until
      FROM ${Q} WHERE queue = $2`,
}));

/** Records limiters for every process (see `QueueStorage.declareLimits`). */
export async function declareLimits(db: PostgresContext, limiters: QueueLimiterRecord[], now: number): Promise<void> {
  if (limiters.length === 0) return;
  await db.runner.run(sql(db.tables).declareLimits, [
    ms(now),
    limiters.map((limiter) => limiter.queue),
    limiters.map((limiter) => limiter.max),
    limiters.map((limiter) => limiter.duration),
    limiters.map((limiter) => limiter.groupMax ?? null),
    limiters.map((limiter) => limiter.groupDuration ?? null),
  ]);
}

/** Pauses claims of `queue` until `until` (a longer pause in place is kept). */
export async function pauseUntil(db: PostgresContext, queue: string, until: number, now: number): Promise<void> {
  await db.runner.run(sql(db.tables).pauseUntil, [queue, ms(now), ms(until)]);
}

/** Of `queues`, those limited past `now`, with when they open again. */
export async function limitedUntil(db: PostgresContext, queues: string[], now: number): Promise<Map<string, number>> {
  const rows = await db.runner.all(sql(db.tables).limitedUntil, [ms(now), queues]);
  const limited = new Map<string, number>();
  for (const row of rows) if (Number(row.until) > now) limited.set(String(row.queue), Number(row.until));
  return limited;
}

/** The limiters stored for `queue` and when it opens again, or null when it has no row. */
export async function storedLimits(db: PostgresContext, queue: string, now: number): Promise<StoredQueueLimits | null> {
  const [row] = await db.runner.all(sql(db.tables).storedLimits, [ms(now), queue]);
  return row ? toStoredLimits(row, now) : null;
}
