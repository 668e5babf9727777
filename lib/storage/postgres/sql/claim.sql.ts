import { ClaimRequest, JobRecord } from '../../queue-storage.interface';
import { claimedRecordOf } from '../../shared/job-row.mapper';
import { groupedClaimSql } from './group-claim.sql';
import { PostgresContext, REUSED, claimWalk, ms, perSchema } from './postgres-sql-fragments';

/**
 * What a worker needs of a job it claimed, as two columns: the payload, and the rest packed (see `claimedRecordOf`), as
 * text so that no client-side type parser touches it. The id goes as text (a bigint past 2^53 stays exact), and the
 * lease's end is this claim's own (`$2`).
 */
const CLAIMED_JOB_COLUMNS =
  'data, json_build_array(id::text, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, $2::bigint, name, remove_on, job_group, trace_context)::text AS m';
/**
 * The update both claim texts end with. It leaves `started_at` unset: a job claimed ahead of a free slot waits in its
 * process, and its start is written when a handler gets it (ClaimStorage.markStarted, or the write that ends it). `synchronous_commit` is off for the claim's own transaction only: a claim a
 * server crash undoes leaves its jobs pending, to be claimed again, and any later synchronous commit flushes it.
 */
const claimUpdate = (T: string) => `UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = $1, lease_until = $2, started_at = NULL, updated_at = $3
      WHERE id = ANY (ARRAY(SELECT id FROM picked))
        AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL
      RETURNING ${CLAIMED_JOB_COLUMNS}`;

/** Paused by an operator, or by a handler's RateLimitError until limited_until. */
const notPaused = (Q: string, queue: string) =>
  `NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ${queue} AND (paused OR limited_until > $3))`;

/**
 * One statement that claims for several queues at once: one index walk per requested queue (a LATERAL join
 * over the requests), each with its own LIMIT and `FOR UPDATE SKIP LOCKED`, so a queue never takes more than
 * its free slots and processes on other machines claim the next rows instead of waiting for ours. The update
 * finds the picked rows by primary key (`= ANY (ARRAY(...))`): joined to the picked set instead, the planner
 * cannot know it is small and may hash-join it against the whole table.
 *
 * The requests are read through sub-selects (`unnest((SELECT $4::text[]), ...)`) so that no plan knows how many there
 * are. A custom plan saw the arrays' real length (say 4 queues) and priced itself below the generic plan, which
 * believes 10, so once the table had statistics the server planned the statement again at every call (0.2-0.3 ms of
 * its CPU per claim) and got the same plan. The due time is read the same way: under the walk's constant bound
 * (`claimWalk`), a custom plan that saw it priced a deep backlog below the generic plan, and the server planned every
 * claim again. Priced alike, the server keeps one generic plan after five calls (test/postgres-claim-plan.e2e-spec.ts
 * and test/postgres-claim-backlog-plan.e2e-spec.ts pin it).
 *
 * The claim's commit does not wait for its WAL flush (`synchronous_commit` off for this statement's transaction
 * only, through `set_config(..., true)`): the flush was most of a claim's time (a few ms per claim, more on a busy
 * disk) and sits between a job's enqueue and its start. Nothing is lost by it: a claim that a server crash undoes
 * leaves its jobs pending, to be claimed again (at least once, as after any crash), and every later synchronous
 * commit (the completion's, an enqueue's) flushes the WAL of the claims before it, so an outcome is never saved
 * over a claim that could still vanish.
 */
const claimSql = perSchema(
  ({ T, Q }) => `/* claim */ WITH picked AS (
        SELECT job.id FROM unnest((SELECT $4::text[]), (SELECT $5::int[])) AS request(queue, lim)
        CROSS JOIN LATERAL ${claimWalk(T, { columns: 'id', queue: 'request.queue', limit: 'request.lim', due: '(SELECT $3::bigint)', lock: true })} AS job
        WHERE ${notPaused(Q, 'request.queue')}
      )
      ${claimUpdate(T)}`,
);

/**
 * The claim when a requested queue has a rate limit or a global concurrency: the same walk, with each limited
 * queue's LIMIT also bounded by what its window and global slots allow. Claims of a limited queue take turns:
 * each locks the queue's row (in queue order, so two never deadlock) for the length of its statement, reads the
 * window from that row (a row lock returns its newest version) and counts running jobs with a VOLATILE function,
 * which reads a fresh snapshot: the statement's own snapshot predates the claim it waited for. The same statement
 * advances the window by what it picked. Unlimited queues of the round are claimed as in the plain text, unlocked.
 */
const limitedClaimSql = perSchema(
  ({ T, Q, runningCount }) => `/* claim */ WITH request AS (
        SELECT * FROM unnest($4::text[], $5::int[], $6::bool[], $7::int[]) AS request(queue, lim, rated, gmax)
      ),
      locked AS MATERIALIZED (
        SELECT queue, rate_max, rate_duration, window_start, window_count FROM ${Q}
        WHERE queue IN (SELECT queue FROM request WHERE rated OR gmax IS NOT NULL)
        ORDER BY queue
        FOR UPDATE
      ),
      allowed AS MATERIALIZED (
        SELECT request.queue, request.rated, GREATEST(0, LEAST(request.lim,
            CASE WHEN request.rated THEN
              CASE WHEN locked.window_start + locked.rate_duration > $3 THEN locked.rate_max - locked.window_count ELSE locked.rate_max END
            END,
            CASE WHEN request.gmax IS NOT NULL THEN request.gmax - ${runningCount}(request.queue, $3) END)) AS lim
        FROM request LEFT JOIN locked ON locked.queue = request.queue
      ),
      picked AS MATERIALIZED (
        SELECT job.id, allowed.queue, allowed.rated FROM allowed
        CROSS JOIN LATERAL ${claimWalk(T, { columns: 'id', queue: 'allowed.queue', limit: 'allowed.lim', due: '$3', lock: true })} AS job
        WHERE ${notPaused(Q, 'allowed.queue')}
      ),
      counted AS (
        UPDATE ${Q} AS q SET
          window_count = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_count + taken.n ELSE taken.n END,
          window_start = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_start ELSE $3 END
        FROM (SELECT queue, count(*)::int AS n FROM picked WHERE rated GROUP BY queue) AS taken
        WHERE q.queue = taken.queue AND q.rate_max IS NOT NULL
      )
      ${claimUpdate(T)}`,
);

/** The claim of a round with a grouped queue (group-claim.sql.ts), ending in the same update. */
const groupedSql = perSchema((tables) => groupedClaimSql(tables)(claimUpdate(tables.T)));

/**
 * Takes up to each request's limit of due pending jobs of unpaused queues for `workerId`, in one statement, within
 * the rate limits and global concurrency the requests name. Hot path.
 */
export async function claimJobs(
  db: PostgresContext,
  requests: ClaimRequest[],
  workerId: string,
  now: number,
  leaseDuration: number,
): Promise<JobRecord[]> {
  // On this node's clock, like every time the nodes compare (see Clocks in docs/postgresql.md): PostgreSQL statements
  // do not wait for a file lock, and the database server's clock may differ from the nodes'.
  const leaseUntil = now + leaseDuration;
  const wanted = requests.filter((request) => request.limit > 0);
  if (wanted.length === 0) return [];
  const grouped = wanted.some((request) => request.grouped === true);
  const limited = grouped || wanted.some((request) => request.rateLimited || request.globalConcurrency !== undefined);
  const params: unknown[] = [
    workerId,
    ms(leaseUntil),
    ms(now),
    wanted.map((request) => request.queue),
    wanted.map((request) => request.limit),
  ];
  if (limited) {
    params.push(
      wanted.map((request) => request.rateLimited === true),
      wanted.map((request) => request.globalConcurrency ?? null),
    );
  }
  if (grouped) {
    params.push(
      wanted.map((request) => request.grouped === true),
      wanted.map((request) => (request.grouped === true ? (request.groupConcurrency ?? null) : null)),
      wanted.map((request) => request.groupAfter ?? ''),
      wanted.map((request) => request.grouped === true && request.groupRateLimited === true),
    );
    const rows = await db.runner.all(groupedSql(db.tables), params);
    return rows.map((row) => claimedRecordOf(row.m as string, row.data as string, workerId, now));
  }
  // The plain claim is the hot one, kept prepared; the limited one locks queue rows and counts, planned at each call.
  const rows = limited ? await db.runner.all(limitedClaimSql(db.tables), params) : await db.runner.all(claimSql(db.tables), params, REUSED);
  return rows.map((row) => claimedRecordOf(row.m as string, row.data as string, workerId, now));
}
