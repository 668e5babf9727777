/**
 * Loose index scans (of the claim index, `(queue, priority DESC, run_at, id) WHERE status = 'pending'`, and the
 * like), and the statements built on them, in SQL both backends run as written (only the parameter markers differ,
 * so the statements take theirs): neither SQLite nor PostgreSQL skips through an index for DISTINCT or GROUP BY, and a
 * GROUP BY over the pending rows reads all of them (90 to 130 ms with a million-job backlog, on the connection claims
 * wait for). These recursive WITH items take one index seek per queue, and per priority, instead.
 */

/**
 * A WITH RECURSIVE item `name(queue)` naming the queues of table `T` that have rows matching `where` (a condition an
 * index leading with `queue` covers), one seek each, ending in one NULL row.
 */
export function queuesCte(name: string, T: string, where: string): string {
  return `${name}(queue) AS (
    SELECT (SELECT MIN(queue) FROM ${T} WHERE ${where})
    UNION ALL
    SELECT (SELECT MIN(queue) FROM ${T} WHERE ${where} AND queue > ${name}.queue)
    FROM ${name} WHERE ${name}.queue IS NOT NULL
  )`;
}

/** The queues with pending jobs of table `T`, `pending_queue(queue)`, by the claim index (see `queuesCte`). */
export function pendingQueuesCte(T: string): string {
  return queuesCte('pending_queue', T, `status = 'pending'`);
}

/**
 * A WITH RECURSIVE item after `pendingQueuesCte`: per queue, each priority its pending jobs have,
 * `pending_level(queue, priority)`, each queue's list ending in a NULL priority.
 */
export function pendingLevelsCte(T: string): string {
  return `pending_level(queue, priority) AS (
    SELECT queue, (SELECT MAX(priority) FROM ${T} WHERE status = 'pending' AND queue = pending_queue.queue)
    FROM pending_queue WHERE queue IS NOT NULL
    UNION ALL
    SELECT queue, (SELECT MAX(priority) FROM ${T} WHERE status = 'pending' AND queue = pending_level.queue AND priority < pending_level.priority)
    FROM pending_level WHERE priority IS NOT NULL
  )`;
}

/**
 * Per queue, the oldest run time among its due pending jobs (`queue, run_at`), due by parameter `dueBy`. The claim
 * index orders a queue's jobs by priority first, so the oldest is the first of some priority's run: one seek per queue
 * and priority present instead of every pending row, which a health check every few seconds would read on the
 * connection claims wait for.
 */
export function oldestDuePendingSql(T: string, dueBy: string): string {
  return `WITH RECURSIVE ${pendingQueuesCte(T)}, ${pendingLevelsCte(T)}
    SELECT queue, MIN(run_at) AS run_at FROM (
      SELECT queue, (SELECT run_at FROM ${T} AS due WHERE due.status = 'pending' AND due.queue = pending_level.queue
          AND due.priority = pending_level.priority AND due.run_at <= ${dueBy} ORDER BY due.run_at LIMIT 1) AS run_at
      FROM pending_level WHERE priority IS NOT NULL
    ) AS level_oldest WHERE run_at IS NOT NULL GROUP BY queue`;
}

/**
 * Per queue with pending jobs that no live processor announcement in queues table `Q` covers at parameter `now`, a
 * job due by parameter `dueBy`: the first in claim order (`queue, run_at`). Run at boot and every announcement period.
 */
export function unprocessedQueuesSql(T: string, Q: string, dueBy: string, now: string): string {
  return `WITH RECURSIVE ${pendingQueuesCte(T)}
    SELECT queue, run_at FROM (
      SELECT queue, (SELECT run_at FROM ${T} AS due WHERE due.queue = pending_queue.queue AND due.status = 'pending'
          AND due.run_at <= ${dueBy} ORDER BY due.priority DESC, due.run_at, due.id LIMIT 1) AS run_at
      FROM pending_queue
      WHERE queue IS NOT NULL AND queue NOT IN (SELECT queue FROM ${Q} WHERE processor_until > ${now})
    ) AS candidate WHERE run_at IS NOT NULL`;
}

/**
 * One row, `busy` 1 or 0: whether table `T` holds a running job, or a pending job due by parameter `dueBy` in a queue
 * that queues table `Q` does not mark paused (`pausedTrue`: that backend's test of the `paused` column). With `queue`
 * (a parameter marker), only that queue's jobs count; it appears twice, before `dueBy`. One statement, so one moment:
 * read apart, a job moving between pending and running between the two reads was in neither.
 */
export function hasWorkSql(T: string, Q: string, pausedTrue: string, dueBy: string, queue?: string): string {
  const ofQueue = (column: string) => (queue === undefined ? '' : `AND ${column} = ${queue}`);
  return `WITH RECURSIVE ${pendingQueuesCte(T)}, ${pendingLevelsCte(T)}
    SELECT CASE WHEN EXISTS (SELECT 1 FROM ${T} WHERE status = 'running' ${ofQueue('queue')})
      OR EXISTS (
        SELECT 1 FROM pending_level WHERE priority IS NOT NULL ${ofQueue('pending_level.queue')}
          AND pending_level.queue NOT IN (SELECT queue FROM ${Q} WHERE ${pausedTrue})
          AND EXISTS (SELECT 1 FROM ${T} AS due WHERE due.status = 'pending' AND due.queue = pending_level.queue
            AND due.priority = pending_level.priority AND due.run_at <= ${dueBy})
      ) THEN 1 ELSE 0 END AS busy`;
}
