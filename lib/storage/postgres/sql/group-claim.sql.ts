/**
 * The claim of a round in which some queue's jobs carry groups (see claim.sql.ts for the other two texts): one
 * statement for every requested queue. Queues without groups are walked as in the limited claim; a grouped queue is
 * served fairly: each group's first due job ranks before any group's next (round robin by group within priority), a
 * group's running jobs counting as turns it already had, and with a group concurrency a group's turns stop there.
 *
 * A grouped queue with a group concurrency is locked like a limited one (its queues row, in queue order), and its
 * running jobs are counted per group after the lock by a VOLATILE function (migration 9), which sees the claim that
 * held the lock although this statement's snapshot predates it. That stale snapshot may still show jobs that claim
 * took as pending: the picked rows are locked and re-read (`FOR UPDATE ... SKIP LOCKED` re-checks `status`), so such
 * a job drops out, and a group never gets more than its free turns.
 *
 * What it reads, by index only: per grouped queue, its groups with pending jobs (a loose index scan of
 * `_group_claim`, one seek each), each group's first due job, and its head in plain order (the next `lim` due
 * jobs: a busy group's next turns, and the turns of the jobs without a group, which count as one more group).
 */
import { PostgresTables, perSchema } from './postgres-sql-fragments';

/**
 * Groups the walk may pass over without finding an idle one, beyond the request's limit and the queue's busy groups
 * (the same bound as SQLite's, see group-claim.sql.ts there).
 */
const GROUP_WALK_SLACK = 64;

/** 1 when the walked group `w.g` has nothing running and a due job (ends the walk once `lim` are found), else 0. */
const idleAndDue = (T: string, w: string) => `(CASE WHEN
      EXISTS (SELECT 1 FROM ${T} WHERE queue = ${w}.queue AND status = 'pending' AND job_group = ${w}.g AND run_at <= $3)
      AND NOT EXISTS (SELECT 1 FROM ${T} WHERE queue = ${w}.queue AND job_group = ${w}.g AND status = 'running' AND lease_until > $3)
    THEN 1 ELSE 0 END)`;

/** Paused by an operator, or by a handler's RateLimitError until limited_until. */
const notPaused = (Q: string, queue: string) =>
  `NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ${queue} AND (paused OR limited_until > $3))`;

/**
 * Params: $1 worker, $2 lease until, $3 now, then per request $4 queue, $5 lim, $6 rated, $7 global max (or null),
 * $8 grouped, $9 group concurrency (or null), $10 the group the walk starts after ('' for the first). `update` is the claim's UPDATE of the `picked` rows.
 */
export const groupedClaimSql = perSchema(
  ({ T, Q, runningCount, groupRunning }: PostgresTables) =>
    (update: string) => `/* claim */ WITH RECURSIVE request AS (
        SELECT * FROM unnest($4::text[], $5::int[], $6::bool[], $7::int[], $8::bool[], $9::int[], $10::text[])
          AS request(queue, lim, rated, gmax, grouped, gcap, after)
      ),
      locked AS MATERIALIZED (
        SELECT queue, rate_max, rate_duration, window_start, window_count FROM ${Q}
        WHERE queue IN (SELECT queue FROM request WHERE rated OR gmax IS NOT NULL OR gcap IS NOT NULL)
        ORDER BY queue
        FOR UPDATE
      ),
      allowed AS MATERIALIZED (
        SELECT request.queue, request.rated, request.grouped, request.gcap, request.after, GREATEST(0, LEAST(request.lim,
            CASE WHEN request.rated THEN
              CASE WHEN locked.window_start + locked.rate_duration > $3 THEN locked.rate_max - locked.window_count ELSE locked.rate_max END
            END,
            CASE WHEN request.gmax IS NOT NULL THEN request.gmax - ${runningCount}(request.queue, $3) END)) AS lim
        FROM request LEFT JOIN locked ON locked.queue = request.queue
      ),
      busy AS MATERIALIZED (
        SELECT allowed.queue, b.grp, b.n FROM allowed CROSS JOIN LATERAL ${groupRunning}(allowed.queue, $3) AS b
        WHERE allowed.grouped AND allowed.lim > 0
      ),
      bound AS MATERIALIZED (
        SELECT allowed.queue, allowed.after, allowed.lim,
            allowed.lim + ${GROUP_WALK_SLACK} + (SELECT count(*) FROM busy WHERE busy.queue = allowed.queue AND busy.grp IS NOT NULL) AS steps
          FROM allowed WHERE allowed.grouped AND allowed.lim > 0
      ),
      walk_after(queue, g, steps, found) AS (
        SELECT bound.queue, (SELECT min(job_group) FROM ${T} WHERE queue = bound.queue AND status = 'pending' AND job_group > bound.after), 0, 0
          FROM bound
        UNION ALL
        SELECT w.queue, (SELECT min(job_group) FROM ${T} WHERE queue = w.queue AND status = 'pending' AND job_group > w.g),
            w.steps + 1, w.found + ${idleAndDue(T, 'w')}
          FROM walk_after AS w JOIN bound ON bound.queue = w.queue
          WHERE w.g IS NOT NULL AND w.steps < bound.steps AND w.found < bound.lim
      ),
      walk_before(queue, g, steps, found) AS (
        SELECT w.queue,
            (SELECT min(job_group) FROM ${T} WHERE queue = w.queue AND status = 'pending' AND job_group IS NOT NULL AND job_group <= bound.after),
            w.steps, w.found
          FROM walk_after AS w JOIN bound ON bound.queue = w.queue
          WHERE w.g IS NULL AND w.steps < bound.steps AND w.found < bound.lim
        UNION ALL
        SELECT w.queue,
            (SELECT min(job_group) FROM ${T} WHERE queue = w.queue AND status = 'pending' AND job_group > w.g AND job_group <= bound.after),
            w.steps + 1, w.found + ${idleAndDue(T, 'w')}
          FROM walk_before AS w JOIN bound ON bound.queue = w.queue
          WHERE w.g IS NOT NULL AND w.steps < bound.steps AND w.found < bound.lim
      ),
      grp(queue, g) AS (
        SELECT queue, g FROM walk_after WHERE g IS NOT NULL UNION ALL SELECT queue, g FROM walk_before WHERE g IS NOT NULL
      ),
      cand AS (
        SELECT grp.queue, first.id FROM grp CROSS JOIN LATERAL (
            SELECT id FROM ${T} WHERE queue = grp.queue AND status = 'pending' AND job_group = grp.g AND run_at <= $3
            ORDER BY priority DESC, run_at, id LIMIT 1
          ) AS first
        UNION
        SELECT allowed.queue, head.id FROM allowed CROSS JOIN LATERAL (
            SELECT id FROM ${T} WHERE queue = allowed.queue AND status = 'pending' AND run_at <= $3
            ORDER BY priority DESC, run_at, id LIMIT allowed.lim
          ) AS head
        WHERE allowed.grouped
      ),
      ranked AS (
        SELECT j.id, j.queue, j.priority, j.run_at, j.job_group,
            row_number() OVER (PARTITION BY j.queue, j.job_group ORDER BY j.priority DESC, j.run_at, j.id) + coalesce(busy.n, 0) AS turn
          FROM cand JOIN ${T} AS j ON j.id = cand.id
          LEFT JOIN busy ON busy.queue = j.queue AND busy.grp IS NOT DISTINCT FROM j.job_group
      ),
      ordered AS MATERIALIZED (
        SELECT ranked.id, ranked.queue, row_number() OVER (PARTITION BY ranked.queue ORDER BY ranked.priority DESC, ranked.turn, ranked.run_at, ranked.id) AS pos
          FROM ranked JOIN allowed ON allowed.queue = ranked.queue
          WHERE ranked.job_group IS NULL OR allowed.gcap IS NULL OR ranked.turn <= allowed.gcap
      ),
      grouped_picked AS MATERIALIZED (
        SELECT j.id, allowed.queue, allowed.rated FROM ${T} AS j
          JOIN ordered ON ordered.id = j.id JOIN allowed ON allowed.queue = ordered.queue
        WHERE ordered.pos <= allowed.lim AND j.status = 'pending' AND ${notPaused(Q, 'allowed.queue')}
        FOR UPDATE OF j SKIP LOCKED
      ),
      plain_picked AS MATERIALIZED (
        SELECT job.id, allowed.queue, allowed.rated FROM allowed
        CROSS JOIN LATERAL (
          SELECT id FROM ${T}
          WHERE queue = allowed.queue AND status = 'pending' AND run_at <= $3
          ORDER BY priority DESC, run_at, id
          LIMIT allowed.lim
          FOR UPDATE SKIP LOCKED
        ) AS job
        WHERE NOT allowed.grouped AND ${notPaused(Q, 'allowed.queue')}
      ),
      picked AS (SELECT * FROM grouped_picked UNION ALL SELECT * FROM plain_picked),
      counted AS (
        UPDATE ${Q} AS q SET
          window_count = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_count + taken.n ELSE taken.n END,
          window_start = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_start ELSE $3 END
        FROM (SELECT queue, count(*)::int AS n FROM picked WHERE rated GROUP BY queue) AS taken
        WHERE q.queue = taken.queue AND q.rate_max IS NOT NULL
      )
      ${update}`,
);
