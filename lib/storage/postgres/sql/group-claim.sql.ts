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
 * `_group_claim`, one seek each, which also returns the group's first job: `headOf`), and its head in plain order
 * (the next `lim` due jobs: a busy group's next turns, and the turns of the jobs without a group, which count as one
 * more group), and with a group concurrency the jobs without a group among the next `lim` + `UNGROUPED_WINDOW`.
 * Whether a walked group has a job running is read from `busy`, not from the table.
 */
import { PostgresTables, claimWalk, perSchema } from './postgres-sql-fragments';

/**
 * Groups the walk may pass over without finding an idle one, beyond the request's limit and the queue's busy groups
 * (the same bound as SQLite's, see group-claim.sql.ts there).
 */
const GROUP_WALK_SLACK = 64;

/**
 * How far past the request's limit, in plain order, a round with a group concurrency looks for jobs without a group
 * (the same bound as SQLite's, where the reason is: `UNGROUPED_WINDOW` in its group-claim.sql.ts).
 */
const UNGROUPED_WINDOW = 256;

/**
 * The first pending job, in the order of `_group_claim`, of the first group of queue `queue` that the range `range`
 * admits: its group `g`, and `first`, the group's first due job (its id) or null when the group has none due.
 *
 * Both reads ORDER BY exactly the index's columns (the queue, `job_group`, then the claim order) over a range of
 * `job_group` open at its top, so only `_group_claim` read in order returns their row without a sort, and the planner
 * takes it with or without statistics: it estimates the range as many rows, against which a LIMIT 1 in index order is
 * cheap and a sort is not (`test/postgres-group-claim-plan.e2e-spec.ts`). A probe per group by `job_group = g`, or
 * by a range closed on g, is estimated as a row or two: the planner then read `_groups` and sorted the group's
 * pending rows instead, which on a table without statistics it did (10 groups of 10,000 jobs: 447 ms a claim).
 *
 * The group's head is its first due job whenever the head is due. A group whose head is delayed is read again from
 * its start, for its first job below the head's priority that is due (every job of the head's priority is due at
 * the head's time or later), stopping at the next group's first job: then the group has none due.
 */
const headOf = (T: string, queue: string, range: string) => `(
        SELECT h.job_group AS g, CASE WHEN h.run_at <= $3 THEN h.id ELSE (
            SELECT CASE WHEN d.job_group = h.job_group THEN d.id END FROM (
              SELECT job_group, id FROM ${T}
              WHERE queue = ${queue} AND status = 'pending' AND job_group >= h.job_group
                AND (job_group > h.job_group OR (priority < h.priority AND run_at <= $3))
              ORDER BY queue, job_group, priority DESC, run_at, id LIMIT 1
            ) AS d
          ) END AS first
        FROM (
          SELECT job_group, priority, run_at, id FROM ${T}
          WHERE queue = ${queue} AND status = 'pending' AND ${range}
          ORDER BY queue, job_group, priority DESC, run_at, id LIMIT 1
        ) AS h
      )`;

/**
 * 1 when the walked group `w.g` is idle with a due job (ends the walk once `lim` are found), else 0: it has a due job
 * (`w.first`), no running one in `busy` (the count after the queue's lock, on a fresh snapshot), and room in its
 * window (`held`: a group paused or at its group limit must not end the walk, or the groups after it would wait).
 */
const idleAndDue = (w: string) => `(CASE WHEN ${w}.first IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM busy WHERE busy.queue = ${w}.queue AND busy.grp = ${w}.g)
      AND NOT EXISTS (SELECT 1 FROM held WHERE held.queue = ${w}.queue AND held.grp = ${w}.g AND held.allowance <= 0) THEN 1 ELSE 0 END)`;

/** Paused by an operator, or by a handler's RateLimitError until limited_until. */
const notPaused = (Q: string, queue: string) =>
  `NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ${queue} AND (paused OR limited_until > $3))`;

/**
 * Params: $1 worker, $2 lease until, $3 now, then per request $4 queue, $5 lim, $6 rated, $7 global max (or null),
 * $8 grouped, $9 group concurrency (or null), $10 the group the walk starts after ('' for the first), $11 group rate
 * limited. `update` is the claim's UPDATE of the `picked` rows.
 *
 * A queue with a group limiter is locked too; `held` reads its groups' windows and pauses after the lock, on a fresh
 * snapshot (migration 16's function), so two claims never both take a group's last start of a window, and
 * `group_counted` advances the windows of the groups the claim took from, in the same statement. Every grouped queue
 * reads its groups' pauses (a GroupRateLimitError needs no limiter): a read of the few rows of groups held back now.
 */
export const groupedClaimSql = perSchema(
  ({ T, Q, G, runningCount, groupRunning, groupWindows }: PostgresTables) =>
    (update: string) => `/* claim */ WITH RECURSIVE request AS (
        SELECT * FROM unnest($4::text[], $5::int[], $6::bool[], $7::int[], $8::bool[], $9::int[], $10::text[], $11::bool[])
          AS request(queue, lim, rated, gmax, grouped, gcap, after, grated)
      ),
      locked AS MATERIALIZED (
        SELECT queue, rate_max, rate_duration, window_start, window_count, group_rate_max, group_rate_duration FROM ${Q}
        WHERE queue IN (SELECT queue FROM request WHERE rated OR gmax IS NOT NULL OR gcap IS NOT NULL OR grated)
        ORDER BY queue
        FOR UPDATE
      ),
      allowed AS MATERIALIZED (
        SELECT request.queue, request.rated, request.grouped, request.gcap, request.after,
            CASE WHEN request.grated THEN locked.group_rate_max END AS grmax,
            GREATEST(0, LEAST(request.lim,
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
      held AS MATERIALIZED (
        SELECT allowed.queue, w.grp, CASE WHEN w.paused THEN 0 ELSE allowed.grmax - w.used END AS allowance
          FROM allowed CROSS JOIN LATERAL ${groupWindows}(allowed.queue, $3) AS w
        WHERE allowed.grouped AND allowed.lim > 0
      ),
      bound AS MATERIALIZED (
        SELECT allowed.queue, allowed.after, allowed.lim,
            allowed.lim + ${GROUP_WALK_SLACK} + (SELECT count(*) FROM busy WHERE busy.queue = allowed.queue AND busy.grp IS NOT NULL)
              + (SELECT count(*) FROM held WHERE held.queue = allowed.queue AND held.allowance <= 0) AS steps
          FROM allowed WHERE allowed.grouped AND allowed.lim > 0
      ),
      walk_after(queue, g, first, steps, found) AS (
        SELECT bound.queue, nxt.g, nxt.first, 0, 0
          FROM bound LEFT JOIN LATERAL ${headOf(T, 'bound.queue', 'job_group > bound.after')} AS nxt ON true
        UNION ALL
        SELECT w.queue, nxt.g, nxt.first, w.steps + 1, w.found + ${idleAndDue('w')}
          FROM walk_after AS w JOIN bound ON bound.queue = w.queue
          LEFT JOIN LATERAL ${headOf(T, 'w.queue', 'job_group > w.g')} AS nxt ON true
          WHERE w.g IS NOT NULL AND w.steps < bound.steps AND w.found < bound.lim
      ),
      walk_before(queue, g, first, steps, found) AS (
        SELECT w.queue, nxt.g, nxt.first, w.steps, w.found
          FROM walk_after AS w JOIN bound ON bound.queue = w.queue
          LEFT JOIN LATERAL ${headOf(T, 'w.queue', 'job_group <= bound.after')} AS nxt ON true
          WHERE w.g IS NULL AND w.steps < bound.steps AND w.found < bound.lim
        UNION ALL
        SELECT w.queue, nxt.g, nxt.first, w.steps + 1, w.found + ${idleAndDue('w')}
          FROM walk_before AS w JOIN bound ON bound.queue = w.queue
          LEFT JOIN LATERAL ${headOf(T, 'w.queue', 'job_group > w.g AND job_group <= bound.after')} AS nxt ON true
          WHERE w.g IS NOT NULL AND w.steps < bound.steps AND w.found < bound.lim
      ),
      cand AS (
        SELECT queue, first AS id FROM walk_after WHERE first IS NOT NULL
        UNION
        SELECT queue, first AS id FROM walk_before WHERE first IS NOT NULL
        UNION
        SELECT allowed.queue, head.id FROM allowed CROSS JOIN LATERAL ${claimWalk(T, { columns: 'id', queue: 'allowed.queue', limit: 'allowed.lim', due: '$3', lock: false })} AS head
        WHERE allowed.grouped
        UNION
        SELECT allowed.queue, loose.id FROM allowed CROSS JOIN LATERAL (
            SELECT ahead.id FROM ${claimWalk(T, { columns: 'id, job_group', queue: 'allowed.queue', limit: 'allowed.lim', beyond: UNGROUPED_WINDOW, due: '$3', lock: false })} AS ahead
            WHERE ahead.job_group IS NULL LIMIT allowed.lim
          ) AS loose
        WHERE allowed.grouped AND (allowed.gcap IS NOT NULL OR allowed.grmax IS NOT NULL
          OR EXISTS (SELECT 1 FROM ${G} AS paused WHERE paused.queue = allowed.queue AND paused.limited_until > $3))
      ),
      ranked AS (
        SELECT j.id, j.queue, j.priority, j.run_at, j.job_group,
            row_number() OVER (PARTITION BY j.queue, j.job_group ORDER BY j.priority DESC, j.run_at, j.id) + coalesce(busy.n, 0) AS turn,
            row_number() OVER (PARTITION BY j.queue, j.job_group ORDER BY j.priority DESC, j.run_at, j.id) AS rn
          FROM ${T} AS j LEFT JOIN busy ON busy.queue = j.queue AND busy.grp IS NOT DISTINCT FROM j.job_group
          WHERE j.id = ANY (ARRAY(SELECT id FROM cand))
      ),
      ordered AS MATERIALIZED (
        SELECT ranked.id, ranked.queue, row_number() OVER (PARTITION BY ranked.queue ORDER BY ranked.priority DESC, ranked.turn, ranked.run_at, ranked.id) AS pos
          FROM ranked JOIN allowed ON allowed.queue = ranked.queue
          LEFT JOIN held ON held.queue = ranked.queue AND held.grp = ranked.job_group
          WHERE ranked.job_group IS NULL OR ((allowed.gcap IS NULL OR ranked.turn <= allowed.gcap)
            AND (held.allowance IS NULL OR ranked.rn <= held.allowance) AND (allowed.grmax IS NULL OR ranked.rn <= allowed.grmax))
      ),
      grouped_picked AS MATERIALIZED (
        SELECT j.id, j.queue, j.job_group FROM ${T} AS j
        WHERE j.id = ANY (ARRAY(
            SELECT ordered.id FROM ordered JOIN allowed ON allowed.queue = ordered.queue
            WHERE ordered.pos <= allowed.lim AND ${notPaused(Q, 'allowed.queue')}
          ))
          AND coalesce(j.status, '') = 'pending'
        FOR UPDATE OF j SKIP LOCKED
      ),
      plain_picked AS MATERIALIZED (
        SELECT job.id, allowed.queue, allowed.rated FROM allowed
        CROSS JOIN LATERAL ${claimWalk(T, { columns: 'id', queue: 'allowed.queue', limit: 'allowed.lim', due: '$3', lock: true })} AS job
        WHERE NOT allowed.grouped AND ${notPaused(Q, 'allowed.queue')}
      ),
      picked AS (
        SELECT grouped_picked.id, allowed.queue, allowed.rated FROM grouped_picked JOIN allowed ON allowed.queue = grouped_picked.queue
        UNION ALL
        SELECT * FROM plain_picked
      ),
      counted AS (
        UPDATE ${Q} AS q SET
          window_count = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_count + taken.n ELSE taken.n END,
          window_start = CASE WHEN q.window_start + q.rate_duration > $3 THEN q.window_start ELSE $3 END
        FROM (SELECT queue, count(*)::int AS n FROM picked WHERE rated GROUP BY queue) AS taken
        WHERE q.queue = taken.queue AND q.rate_max IS NOT NULL
      ),
      group_counted AS (
        INSERT INTO ${G} AS g (queue, job_group, window_start, window_count)
        SELECT taken.queue, taken.job_group, $3, taken.n FROM (
            SELECT grouped_picked.queue, grouped_picked.job_group, count(*)::int AS n FROM grouped_picked
              JOIN allowed ON allowed.queue = grouped_picked.queue
            WHERE allowed.grmax IS NOT NULL AND grouped_picked.job_group IS NOT NULL
            GROUP BY grouped_picked.queue, grouped_picked.job_group
          ) AS taken
        ORDER BY taken.queue, taken.job_group
        ON CONFLICT (queue, job_group) DO UPDATE SET
          window_count = CASE WHEN g.window_start + coalesce((SELECT group_rate_duration FROM ${Q} WHERE ${Q}.queue = g.queue), 0) > $3
            THEN g.window_count + excluded.window_count ELSE excluded.window_count END,
          window_start = CASE WHEN g.window_start + coalesce((SELECT group_rate_duration FROM ${Q} WHERE ${Q}.queue = g.queue), 0) > $3
            THEN g.window_start ELSE $3 END
      )
      ${update}`,
);
