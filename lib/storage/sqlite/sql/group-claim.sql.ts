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
 * group theirs: together they count as one more group), and the running jobs (the small `_running` index). The cost
 * grows with the number of groups with pending jobs, not with the backlog.
 */
import { ClaimRequest } from '../../queue-storage.interface';
import { T } from './sqlite-sql-fragments';

/** No group concurrency: a bound no turn reaches (a claim takes at most `LIMITS.batchSize` jobs). */
const NO_GROUP_BOUND = 2_147_483_647;

/**
 * One grouped branch, its LIMIT bounded by the queue's rate window and global slots where it has them
 * (`notPaused`, `rateAllowance` and `globalAllowance` are the fragments of claim.sql.ts). Params: see
 * `groupedBranchParams`.
 */
export function groupedBranch(notPaused: string, rateAllowance: string, globalAllowance: string): string {
  return `SELECT id FROM (
      WITH RECURSIVE grp(g) AS (
        SELECT (SELECT min(job_group) FROM ${T} WHERE queue = ? AND status = 'pending' AND job_group IS NOT NULL)
        UNION ALL
        SELECT (SELECT min(job_group) FROM ${T} WHERE queue = ? AND status = 'pending' AND job_group > grp.g) FROM grp WHERE grp.g IS NOT NULL
      ),
      busy(g, n) AS (SELECT job_group, count(*) FROM ${T} WHERE status = 'running' AND lease_until > ? AND queue = ? GROUP BY job_group),
      cand(id) AS (
        SELECT (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND job_group = grp.g AND run_at <= ?
            ORDER BY priority DESC, run_at, id LIMIT 1)
          FROM grp WHERE grp.g IS NOT NULL
        UNION
        SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ? ORDER BY priority DESC, run_at, id LIMIT ?)
      ),
      ranked(id, priority, run_at, g, turn) AS (
        SELECT j.id, j.priority, j.run_at, j.job_group,
            row_number() OVER (PARTITION BY j.job_group ORDER BY j.priority DESC, j.run_at, j.id)
              + coalesce((SELECT n FROM busy WHERE busy.g IS j.job_group), 0)
          FROM cand JOIN ${T} AS j ON j.id = cand.id
      )
      SELECT id FROM ranked
      WHERE (g IS NULL OR turn <= ?) AND ${notPaused}
      ORDER BY priority DESC, turn, run_at, id
      LIMIT max(0, min(?, ${rateAllowance}, coalesce(${globalAllowance}, ?))))`;
}

/** The parameters of one grouped branch, in the order of its SQL (the allowances' as claim.sql.ts binds them). */
export function groupedBranchParams(params: unknown[], request: ClaimRequest, now: number): void {
  const { queue, limit } = request;
  params.push(queue, queue, now, queue, queue, now, queue, now, limit, request.groupConcurrency ?? NO_GROUP_BOUND, queue, now, limit);
  params.push(now, queue, limit); // the rate allowance: the request's limit when the queue has no limiter
  params.push(request.globalConcurrency ?? null, now, queue, limit); // the global allowance, or the limit
}
