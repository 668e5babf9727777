import { GROUP_LIMITS_TABLE } from '../../../table-names.constants';
import { StatementRunner } from '../../shared/statement-runner';
import { Q, T } from './sqlite-sql-fragments';

const G = GROUP_LIMITS_TABLE;

/** A GroupRateLimitError's pause of one group: a longer pause already in place wins; the group's window is kept. */
const PAUSE_GROUP_SQL = `INSERT INTO ${G} (queue, job_group, limited_until) VALUES (?, ?, ?)
  ON CONFLICT (queue, job_group) DO UPDATE SET limited_until = max(limited_until, excluded.limited_until)`;

/**
 * Rows whose window and pause have both ended: they hold nothing back, and a group's next claim starts a new window
 * whether its row is there or not. Bounded per statement, so a backlog of idle groups is deleted over several beats.
 */
const FORGET_SQL = `DELETE FROM ${G} WHERE (queue, job_group) IN (SELECT g.queue, g.job_group FROM ${G} AS g
  LEFT JOIN ${Q} AS q ON q.queue = g.queue
  WHERE g.limited_until <= ? AND g.window_start + coalesce(q.group_rate_duration, 0) <= ? LIMIT ?)`;

/**
 * The earliest time a group of `queue` held back now (paused, or its window used up under the queue's stored group
 * limiter) opens again, among the groups with a due pending job: when the poller must come back for them.
 */
const GROUP_OPENS_AT_SQL = `SELECT min(max(g.limited_until, CASE WHEN g.window_count >= q.group_rate_max AND g.window_start + q.group_rate_duration > ?
      THEN g.window_start + q.group_rate_duration ELSE 0 END)) AS until
  FROM ${G} AS g LEFT JOIN ${Q} AS q ON q.queue = g.queue
  WHERE g.queue = ? AND (g.limited_until > ? OR (g.window_count >= q.group_rate_max AND g.window_start + q.group_rate_duration > ?))
    AND EXISTS (SELECT 1 FROM ${T} WHERE queue = g.queue AND status = 'pending' AND job_group = g.job_group AND run_at <= ?)`;

/** Pauses claims of `group` of `queue` until `until` (a longer pause in place is kept). */
export async function pauseGroupUntil(runner: StatementRunner, queue: string, group: string, until: number): Promise<void> {
  await runner.run(PAUSE_GROUP_SQL, [queue, group, Math.round(until)]);
}

/** Deletes up to `limit` rows of groups whose window and pause ended by `now`; how many. */
export function forgetGroupWindows(runner: StatementRunner, now: number, limit: number): Promise<number> {
  return runner.run(FORGET_SQL, [now, now, limit]);
}

/** When the first group of `queue` held back at `now` with a due job opens again, or null when none is. */
export async function groupOpensAt(runner: StatementRunner, queue: string, now: number): Promise<number | null> {
  const [row] = await runner.all(GROUP_OPENS_AT_SQL, [now, queue, now, now, now]);
  return row?.until === null || row?.until === undefined ? null : Number(row.until);
}
