import { PostgresContext, ms, perSchema } from './postgres-sql-fragments';

const sql = perSchema(({ T, Q, G }) => ({
  /** A GroupRateLimitError's pause of one group: a longer pause already in place wins; the group's window is kept. */
  pauseGroup: `INSERT INTO ${G} AS g (queue, job_group, limited_until) VALUES ($1, $2, $3)
      ON CONFLICT (queue, job_group) DO UPDATE SET limited_until = GREATEST(g.limited_until, excluded.limited_until)`,
  /**
   * Rows whose window and pause have both ended (see the SQLite statement): bounded per statement. A row a claim locks
   * meanwhile is skipped, not waited for.
   */
  forget: `DELETE FROM ${G} WHERE (queue, job_group) IN (
      SELECT g.queue, g.job_group FROM ${G} AS g LEFT JOIN ${Q} AS q ON q.queue = g.queue
      WHERE g.limited_until <= $1 AND g.window_start + coalesce(q.group_rate_duration, 0) <= $1
      LIMIT $2 FOR UPDATE OF g SKIP LOCKED)`,
  /** When the first group of a queue held back now, with a due pending job, opens again (see the SQLite statement). */
  opensAt: `SELECT min(GREATEST(g.limited_until, CASE WHEN g.window_count >= q.group_rate_max AND g.window_start + q.group_rate_duration > $1
        THEN g.window_start + q.group_rate_duration ELSE 0 END)) AS until
      FROM ${G} AS g LEFT JOIN ${Q} AS q ON q.queue = g.queue
      WHERE g.queue = $2 AND (g.limited_until > $1 OR (g.window_count >= q.group_rate_max AND g.window_start + q.group_rate_duration > $1))
        AND EXISTS (SELECT 1 FROM ${T} WHERE queue = g.queue AND status = 'pending' AND job_group = g.job_group AND run_at <= $1)`,
}));

/** Pauses claims of `group` of `queue` until `until` (a longer pause in place is kept). */
export async function pauseGroupUntil(db: PostgresContext, queue: string, group: string, until: number): Promise<void> {
  await db.runner.run(sql(db.tables).pauseGroup, [queue, group, ms(until)]);
}

/** Deletes up to `limit` rows of groups whose window and pause ended by `now`; how many. */
export function forgetGroupWindows(db: PostgresContext, now: number, limit: number): Promise<number> {
  return db.runner.run(sql(db.tables).forget, [ms(now), limit]);
}

/** When the first group of `queue` held back at `now` with a due job opens again, or null when none is. */
export async function groupOpensAt(db: PostgresContext, queue: string, now: number): Promise<number | null> {
  const [row] = await db.runner.all(sql(db.tables).opensAt, [ms(now), queue]);
  return row?.until === null || row?.until === undefined ? null : Number(row.until);
}
