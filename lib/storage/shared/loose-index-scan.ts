/**
 * Loose index scans (of the claim index, `(queue, priority DESC, run_at, id) WHERE status = 'pending'`, and the
 * like), in SQL both backends run as written: neither SQLite nor PostgreSQL skips through an index for DISTINCT or GROUP BY, and a
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
