/**
 * The claim's branch for a queue whose jobs carry groups (see `claim.sql.ts`, which unites it with the other
 * queues' branches in its one UPDATE). Fair: among the due jobs, each group's first job is ranked before any group's
 * next one (round robin by group within priority), a group's running jobs counting as turns it already had; and when
 * the queue has a group concurrency, a group's turns stop at it, across every process (the statement runs under
 * SQLite's write lock, so no other process claims between the count and the update).
 *
 * What it reads, by index only: the queue's groups with pending jobs (one seek each in `_group_claim`, a loose index
 * scan: GROUP BY or DISTINCT would read every pending row), each group's first due job (one more seek), the queue's
 * head in plain order (its next `limit` due jobs, which gives a busy group its next turns and the jobs without a
 * group theirs: together they count as one more group), with a group concurrency the jobs without a group among the
 * next `limit` + `UNGROUPED_WINDOW` (see there), and the running jobs (the small `_running` index); and each walked or
 * candidate group's row of the groups' windows (a seek by key: a GroupRateLimitError's pause, and with a group limiter
 * what is left of its window), and the queue's held-back groups' rows. The cost grows with the number of groups with
 * pending jobs, not with the backlog.
 */
import { ClaimRequest } from '../../queue-storage.interface';
import { GROUP_LIMITS_TABLE } from '../../../table-names.constants';
import { Q, T } from './sqlite-sql-fragments';

const G = GROUP_LIMITS_TABLE;

/** No group concurrency: a bound no turn reaches (a claim takes at most `LIMITS.batchSize` jobs). */
const NO_GROUP_BOUND = 2_147_483_647;

/**
 * Groups the walk may pass over without finding an idle one (groups whose every pending job is delayed), beyond the
 * request's limit and the queue's groups with running jobs: the bound that keeps a round's cost independent of the
 * number of groups.
 */
export const GROUP_WALK_SLACK = 64;

/**
 * How far past the request's limit, in plain order, a round with a group concurrency or a group limiter, or while a
 * group of the queue is paused by a GroupRateLimitError, looks for jobs without a group.
 * The head in plain order gives those jobs their turns, but in such a queue it can be full of jobs of groups at their
 * bound, which the round cannot take: without this look-ahead the jobs without a group waited behind that backlog
 * while slots stood free. No index holds only the pending jobs without a group (one more on every job's path was not
 * worth it), so the look is bounded: behind more than this many jobs of capped groups they still wait.
 */
export const UNGROUPED_WINDOW = 256;

/**
 * How many more jobs group `g` may start now: 0 while a GroupRateLimitError pauses it, what is left of its window
 * under a group limiter (a new window allows all of `gmax`), else no bound. One seek of the groups' windows by key,
 * reading the queue, the time and the limiter from `gp`. No params.
 */
const groupAllowance = (g: string) => `(SELECT CASE WHEN gl.limited_until > gp.now THEN 0
      WHEN gp.gmax IS NULL THEN ${NO_GROUP_BOUND}
      WHEN gl.window_start + gp.gdur > gp.now THEN gp.gmax - gl.window_count
      ELSE gp.gmax END
    FROM gp LEFT JOIN ${G} AS gl ON gl.queue = gp.queue AND gl.job_group = ${g})`;

/**
 * A group visited by the walk that has nothing running, a due job, and room in its window (neither paused nor at its
 * group limit: such a group must not end the walk, or the groups after it would wait behind it): what ends the walk
 * once `limit` are found. Two seeks: `_group_claim` for a due job, `_groups` for a running one; one more in the
 * groups' windows. Params: queue, now, queue, now.
 */
const idleAndDue = (g: string) => `(
    (SELECT 1 FROM ${T} WHERE queue = ? AND status = 'pending' AND job_group = ${g} AND run_at <= ?) IS NOT NULL
    AND (SELECT 1 FROM ${T} WHERE queue = ? AND job_group = ${g} AND status = 'running' AND lease_until > ?) IS NULL
    AND ${groupAllowance(g)} > 0)`;

/**
 * One grouped branch, its LIMIT bounded by the queue's rate window and global slots where it has them
 * (`notPaused`, `rateAllowance` and `globalAllowance` are the fragments of claim.sql.ts). Params: see
 * `groupedBranchParams`.
 *
 * The groups are walked from the request's cursor (`groupAfter`, the last group this process claimed from), in
 * name order, wrapping around once: `after` from the cursor to the end, `before` from the start up to the cursor.
 * The walk stops once it has passed `limit` groups that are idle with a due job, or after `limit` + the queue's
 * busy groups + `GROUP_WALK_SLACK` groups: a bounded window, which the cursor moves along from round to round so
 * every group comes into it.
 *
 * Two plan choices are forced, both measured: the loose scan reads `_group_claim` (`INDEXED BY`; the planner took
 * `_groups`, which also holds a group's finished jobs, so each seek could step over all of them), and `ranked` reads
 * the candidates first and looks each job up by id (`CROSS JOIN` keeps SQLite's join order; left to itself it scanned
 * the whole table with a Bloom filter: 27 ms a claim at a 100,000-job backlog, 0 groups).
 */
export function groupedBranch(notPaused: string, rateAllowance: string, globalAllowance: string): string {
  return `SELECT id FROM (
      WITH RECURSIVE gp(queue, now, gmax, gdur) AS MATERIALIZED (
        SELECT ?, ?, q.group_rate_max, q.group_rate_duration FROM (SELECT 1) LEFT JOIN ${Q} AS q
          ON q.queue = ? AND ? AND q.group_rate_max IS NOT NULL
      ),
      busy(g, n) AS MATERIALIZED (
        SELECT job_group, count(*) FROM ${T} WHERE status = 'running' AND lease_until > ? AND queue = ? GROUP BY job_group
      ),
      bound(lim, steps) AS MATERIALIZED (SELECT ?, ? + ${GROUP_WALK_SLACK} + (SELECT count(*) FROM busy WHERE g IS NOT NULL)
        + (SELECT count(*) FROM gp CROSS JOIN ${G} AS gl ON gl.queue = gp.queue WHERE gl.limited_until > gp.now
            OR (gp.gmax IS NOT NULL AND gl.window_start + gp.gdur > gp.now AND gl.window_count >= gp.gmax))),
      after(g, steps, found) AS (
        SELECT (SELECT min(job_group) FROM ${T} INDEXED BY ${T}_group_claim WHERE queue = ? AND status = 'pending' AND job_group > ?), 0, 0
        UNION ALL
        SELECT (SELECT min(job_group) FROM ${T} INDEXED BY ${T}_group_claim WHERE queue = ? AND status = 'pending' AND job_group > after.g),
            after.steps + 1, after.found + ${idleAndDue('after.g')}
          FROM after, bound WHERE after.g IS NOT NULL AND after.steps < bound.steps AND after.found < bound.lim
      ),
      before(g, steps, found) AS (
        SELECT (SELECT min(job_group) FROM ${T} INDEXED BY ${T}_group_claim WHERE queue = ? AND status = 'pending' AND job_group IS NOT NULL AND job_group <= ?),
            after.steps, after.found
          FROM after, bound WHERE after.g IS NULL AND after.steps < bound.steps AND after.found < bound.lim
        UNION ALL
        SELECT (SELECT min(job_group) FROM ${T} INDEXED BY ${T}_group_claim WHERE queue = ? AND status = 'pending' AND job_group > before.g AND job_group <= ?),
            before.steps + 1, before.found + ${idleAndDue('before.g')}
          FROM before, bound WHERE before.g IS NOT NULL AND before.steps < bound.steps AND before.found < bound.lim
      ),
      grp(g) AS (SELECT g FROM after WHERE g IS NOT NULL UNION ALL SELECT g FROM before WHERE g IS NOT NULL),
      cand(id) AS (
        SELECT (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND job_group = grp.g AND run_at <= ?
            ORDER BY priority DESC, run_at, id LIMIT 1)
          FROM grp
        UNION
        SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ? ORDER BY priority DESC, run_at, id LIMIT ?)
        UNION
        SELECT id FROM (SELECT id FROM (
            SELECT id, job_group FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ? ORDER BY priority DESC, run_at, id
            LIMIT CASE WHEN ? OR EXISTS (SELECT 1 FROM ${G} WHERE queue = ? AND limited_until > ?) THEN ? ELSE 0 END
          ) WHERE job_group IS NULL LIMIT ?)
      ),
      ranked(id, priority, run_at, g, turn, rn) AS (
        SELECT j.id, j.priority, j.run_at, j.job_group,
            row_number() OVER (PARTITION BY j.job_group ORDER BY j.priority DESC, j.run_at, j.id)
              + coalesce((SELECT n FROM busy WHERE busy.g IS j.job_group), 0),
            row_number() OVER (PARTITION BY j.job_group ORDER BY j.priority DESC, j.run_at, j.id)
          FROM cand CROSS JOIN ${T} AS j ON j.id = cand.id
      )
      SELECT id FROM ranked
      WHERE (g IS NULL OR (turn <= ? AND rn <= ${groupAllowance('ranked.g')})) AND ${notPaused}
      ORDER BY priority DESC, turn, run_at, id
      LIMIT max(0, min(?, ${rateAllowance}, coalesce(${globalAllowance}, ?))))`;
}

/** The parameters of one grouped branch, in the order of its SQL (the allowances' as claim.sql.ts binds them). */
export function groupedBranchParams(params: unknown[], request: ClaimRequest, now: number): void {
  const { queue, limit } = request;
  // Group names are never empty, so '' as the cursor walks every group from the first.
  const after = request.groupAfter ?? '';
  params.push(queue, now, queue, request.groupRateLimited === true ? 1 : 0); // gp: the group limiter when the request has one
  params.push(now, queue, limit, limit); // busy, bound
  params.push(queue, after, queue, queue, now, queue, now); // after
  params.push(queue, after, queue, after, queue, now, queue, now); // before
  params.push(queue, now, queue, now, limit); // cand: the groups' first jobs, the head
  // cand: the jobs without a group past the head, only where a group concurrency, a group limiter or a group's
  // GroupRateLimitError pause (any process's: read from the groups' windows) can leave the head unclaimable.
  const capped = request.groupConcurrency !== undefined || request.groupRateLimited === true;
  params.push(queue, now, capped ? 1 : 0, queue, now, limit + UNGROUPED_WINDOW, limit);
  params.push(request.groupConcurrency ?? NO_GROUP_BOUND, queue, now, limit);
  params.push(now, queue, limit); // the rate allowance: the request's limit when the queue has no limiter
  params.push(request.globalConcurrency ?? null, now, queue, limit); // the global allowance, or the limit
}
