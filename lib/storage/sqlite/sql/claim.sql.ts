import { ClaimRequest, JobRecord } from '../../queue-storage.interface';
import { claimedRecordOf } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { groupedBranch, groupedBranchParams } from './group-claim.sql';
import { NOW_MS, Q, T } from './sqlite-sql-fragments';

/** What a worker needs of a job it claimed, as two columns: the payload, and the rest packed (see `claimedRecordOf`). */
const CLAIMED_COLUMNS =
  'data, json_array(id, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on, job_group, trace_context) AS m';

/**
 * The kinds of branch, in the order they appear in the statement: unlimited queues first, then those with a rate
 * limit, a global concurrency, or both, then queues whose jobs carry groups (see group-claim.sql.ts), without and with
 * a rate limit. Grouping by kind keeps the number of distinct texts small (one per count of each kind), whichever
 * queues have free slots in a round.
 */
const KINDS = ['plain', 'rate', 'global', 'both', 'grouped', 'groupedRated'] as const;
type BranchKind = (typeof KINDS)[number];

/** One text per count of each kind: the prepared-statement runner keeps one statement per text. */
const claimSqlCache = new Map<string, string>();

/**
 * Paused by an operator, or by a handler's RateLimitError until limited_until. The test names the queue by
 * parameter, not by the row's column: uncorrelated, SQLite evaluates it once per branch instead of once per row.
 * Params: queue, now.
 */
const NOT_PAUSED = `NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ? AND (paused = 1 OR limited_until > ?))`;

/**
 * Jobs the queue's rate limit still allows in the current window (a new window allows rate_max), or the request's
 * limit when the queue has no limiter row. Params: now, queue, limit.
 */
const RATE_ALLOWANCE = `coalesce((SELECT CASE WHEN window_start + rate_duration > ? THEN rate_max - window_count ELSE rate_max END
    FROM ${Q} WHERE queue = ?), ?)`;

/**
 * Free global slots: the limit minus the queue's running jobs whose lease has not expired (a dead process's jobs
 * stop counting when their lease ends). Counted through the small index of running rows. Params: max, queue, now.
 */
const GLOBAL_ALLOWANCE = `? - (SELECT count(*) FROM ${T} WHERE status = 'running' AND lease_until > ? AND queue = ?)`;

/** The LIMIT of a branch of `kind`. Params: see `branchParams`. */
function limitOf(kind: BranchKind): string {
  switch (kind) {
    case 'plain':
      return '?';
    case 'rate':
      return `max(0, min(?, ${RATE_ALLOWANCE}))`;
    case 'global':
      return `max(0, min(?, ${GLOBAL_ALLOWANCE}))`;
    case 'both':
      return `max(0, min(?, ${RATE_ALLOWANCE}, ${GLOBAL_ALLOWANCE}))`;
    case 'grouped':
    case 'groupedRated':
      throw new Error(`a ${kind} branch has its own text (group-claim.sql.ts)`);
  }
}

/** The branch of one queue of `kind` in the claim's UNION ALL. */
function branchOf(kind: BranchKind): string {
  if (kind === 'grouped' || kind === 'groupedRated') return groupedBranch(NOT_PAUSED, RATE_ALLOWANCE, GLOBAL_ALLOWANCE);
  return `SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ? AND ${NOT_PAUSED}
      ORDER BY priority DESC, run_at, id LIMIT ${limitOf(kind)})`;
}

/**
 * One statement that claims for several queues at once: a UNION ALL of one index walk per queue, each with its own
 * LIMIT, so a queue never takes more than its free slots and a full queue costs nothing. A limited queue's LIMIT is
 * also bounded, in SQL, by what its rate window and global concurrency allow; the statement runs under SQLite's
 * write lock, so no other process claims between that count and the update. The rate window is advanced by the
 * trigger of migration 5 (`queue-limits`), which only this statement's `run_at = run_at` brings into the program (see there).
 * `started_at` stays unset: a job claimed ahead of a free slot waits in its process, and its start is written when a
 * handler gets it (see ClaimStorage.markStarted); the rate windows' triggers count from `updated_at` (migration 18).
 * Params: workerId, leaseDuration, now, then each branch's (see `branchParams`).
 */
function claimSql(counts: Record<BranchKind, number>, groupWindows: boolean): string {
  const key = `${KINDS.map((kind) => counts[kind]).join(',')}${groupWindows ? 'g' : ''}`;
  let sql = claimSqlCache.get(key);
  if (sql === undefined) {
    const branches = KINDS.flatMap((kind) => Array.from({ length: counts[kind] }, () => branchOf(kind)));
    const countsWindow = counts.rate + counts.both + counts.groupedRated > 0 ? ', run_at = run_at' : '';
    // The groups' windows are advanced by migration 16's trigger, which only `job_group = job_group` brings in.
    const countsGroupWindows = groupWindows ? ', job_group = job_group' : '';
    sql = `/* claim */ UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ${NOW_MS} + ?, started_at = NULL, updated_at = ?${countsWindow}${countsGroupWindows}
      WHERE id IN (${branches.join(' UNION ALL ')})
      RETURNING ${CLAIMED_COLUMNS}`;
    claimSqlCache.set(key, sql);
  }
  return sql;
}

function kindOf(request: ClaimRequest): BranchKind {
  if (request.grouped) return request.rateLimited ? 'groupedRated' : 'grouped';
  if (request.rateLimited) return request.globalConcurrency === undefined ? 'rate' : 'both';
  return request.globalConcurrency === undefined ? 'plain' : 'global';
}

/** The parameters of one branch, in the order of its SQL. */
function branchParams(params: unknown[], kind: BranchKind, request: ClaimRequest, now: number): void {
  if (kind === 'grouped' || kind === 'groupedRated') return groupedBranchParams(params, request, now);
  const { queue, limit } = request;
  params.push(queue, now, queue, now, limit);
  if (kind === 'rate' || kind === 'both') params.push(now, queue, limit);
  if (kind === 'global' || kind === 'both') params.push(request.globalConcurrency, now, queue);
}

/**
 * Takes up to each request's limit of due pending jobs of unpaused queues for `workerId`, in one statement, within
 * the rate limits and global concurrency the requests name. The lease runs from when the statement runs (see
 * NOW_MS). Hot path.
 */
export async function claimJobs(
  runner: StatementRunner,
  requests: ClaimRequest[],
  workerId: string,
  now: number,
  leaseDuration: number,
): Promise<JobRecord[]> {
  const params: unknown[] = [workerId, Math.round(leaseDuration), now];
  const counts: Record<BranchKind, number> = { plain: 0, rate: 0, global: 0, both: 0, grouped: 0, groupedRated: 0 };
  const byKind = new Map<BranchKind, ClaimRequest[]>();
  for (const request of requests) {
    const kind = kindOf(request);
    counts[kind]++;
    if (kind === 'plain') branchParams(params, kind, request, now);
    else byKind.set(kind, [...(byKind.get(kind) ?? []), request]);
  }
  for (const kind of KINDS) for (const request of byKind.get(kind) ?? []) branchParams(params, kind, request, now);
  const rows = await runner.all(
    claimSql(
      counts,
      requests.some((request) => request.groupRateLimited === true),
    ),
    params,
  );
  return rows.map((row) => claimedRecordOf(row.m as string, row.data as string, workerId, now));
}
