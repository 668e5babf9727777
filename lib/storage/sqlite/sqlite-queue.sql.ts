/**
 * Every SQL statement of the SQLite backend, in one place. Parameters are positional `?` only (both
 * node-sqlite3 and better-sqlite3 bind them). Statements that return rows through RETURNING start with a
 * comment: TypeORM's sqlite runner sends SQL that starts with "UPDATE "/"INSERT " to run(), which drops rows.
 */
import { JOBS_TABLE } from '../../sqlite-queue.constants';

const T = JOBS_TABLE;

/** Columns every job-returning statement selects, in the order `toJobRecord` reads them. */
const JOB_COLUMNS =
  'id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, ' +
  'locked_by, lease_until, result, error, created_at, started_at, finished_at, updated_at';

/** Idempotent schema: safe to run at every boot, from several processes at once. */
export const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${T} (
    id           INTEGER PRIMARY KEY,
    queue        TEXT    NOT NULL,
    status       TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    data         TEXT    NOT NULL,
    priority     INTEGER NOT NULL DEFAULT 0,
    run_at       INTEGER NOT NULL,
    attempts     INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    backoff      TEXT,
    timeout_ms   INTEGER,
    unique_key   TEXT,
    locked_by    TEXT,
    lease_until  INTEGER,
    result       TEXT,
    error        TEXT,
    created_at   INTEGER NOT NULL,
    started_at   INTEGER,
    finished_at  INTEGER,
    updated_at   INTEGER NOT NULL
  )`,
  // The claim walks this per queue in exactly its ORDER BY, touching only due pending rows.
  `CREATE INDEX IF NOT EXISTS ${T}_claim ON ${T} (queue, priority DESC, run_at, id) WHERE status = 'pending'`,
  `CREATE INDEX IF NOT EXISTS ${T}_lease ON ${T} (lease_until) WHERE status = 'running'`,
  `CREATE INDEX IF NOT EXISTS ${T}_owner ON ${T} (locked_by) WHERE status = 'running'`,
  `CREATE INDEX IF NOT EXISTS ${T}_status ON ${T} (queue, status)`,
  // The database, not a read-then-write in JavaScript, keeps one live job per key and queue.
  `CREATE UNIQUE INDEX IF NOT EXISTS ${T}_unique_key ON ${T} (queue, unique_key)
     WHERE unique_key IS NOT NULL AND status IN ('pending', 'running')`,
];

/**
 * Inserts a whole batch from one JSON parameter, so any number of jobs is one atomic statement with no
 * bound-variable limit. Params: queue, now, now, JSON array of [data, priority, runAt, maxAttempts,
 * backoff, timeout, key]. Rows come back in insertion order once sorted by id.
 */
export const ENQUEUE_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, updated_at)
  SELECT ?, 'pending', j.value ->> 0, j.value ->> 1, j.value ->> 2, 0, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, ?, ?
  FROM json_each(?) AS j WHERE true ORDER BY j.key
  ON CONFLICT DO NOTHING
  RETURNING ${JOB_COLUMNS}`;

/** Live jobs holding some keys. Params: queue, JSON array of keys. */
export const FIND_BY_KEYS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND status IN ('pending', 'running') AND unique_key IN (SELECT value FROM json_each(?))`;

const claimSqlCache = new Map<number, string>();

/**
 * One statement that claims for several queues at once: a UNION ALL of one index walk per queue, each
 * with its own LIMIT, so a queue never takes more than its free slots and a full queue costs nothing.
 * Params: workerId, leaseUntil, now, now, then (queue, now, limit) per queue.
 */
export function claimSql(queueCount: number): string {
  let sql = claimSqlCache.get(queueCount);
  if (sql === undefined) {
    const branch = `SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ?
      ORDER BY priority DESC, run_at, id LIMIT ?)`;
    sql = `/* claim */ UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ?, started_at = ?, updated_at = ?
      WHERE id IN (${Array.from({ length: queueCount }, () => branch).join(' UNION ALL ')})
      RETURNING ${JOB_COLUMNS}`;
    claimSqlCache.set(queueCount, sql);
  }
  return sql;
}

/** Params: result, now, now, id, workerId, attempt. */
export const COMPLETE_SQL = `UPDATE ${T}
  SET status = 'completed', result = ?, finished_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** Params: error, runAt, now, id, workerId, attempt. */
export const RETRY_SQL = `UPDATE ${T}
  SET status = 'pending', error = ?, run_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** Params: error, now, now, id, workerId, attempt. */
export const FAIL_SQL = `UPDATE ${T}
  SET status = 'failed', error = ?, finished_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/**
 * Hands attempts back as if they never ran (the attempt is not counted). Params: now, workerId,
 * JSON array of [id, attempt].
 */
export const RELEASE_SQL = `UPDATE ${T}
  SET status = 'pending', attempts = attempts - 1, locked_by = NULL, lease_until = NULL, started_at = NULL, updated_at = ?
  WHERE locked_by = ? AND status = 'running'
    AND (id, attempts) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j)`;

/** One heartbeat for every job of a worker. Params: leaseUntil, now, workerId. */
export const EXTEND_LEASES_SQL = `UPDATE ${T} SET lease_until = ?, updated_at = ?
  WHERE locked_by = ? AND status = 'running'`;

/**
 * Takes back running jobs whose owner stopped renewing their lease. The crashed run counted as an
 * attempt, so a job that kills its process every time ends failed instead of looping.
 * Params: now x4.
 */
export const RECOVER_EXPIRED_SQL = `/* recover */ UPDATE ${T}
  SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
      error = json_object(
        'name', 'LeaseExpiredError',
        'message', 'Lease expired during attempt ' || attempts || ': worker ' || COALESCE(locked_by, '?') ||
                   ' stopped renewing it (the process crashed, hung or was killed)',
        'attempt', attempts),
      finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,
      run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE ? END,
      locked_by = NULL, lease_until = NULL, updated_at = ?
  WHERE status = 'running' AND lease_until < ?
  RETURNING id, queue, status, attempts`;

/** Params: id. */
export const GET_JOB_SQL = `SELECT ${JOB_COLUMNS} FROM ${T} WHERE id = ?`;

/** Counts of every queue. */
export const COUNT_ALL_SQL = `SELECT queue, status, COUNT(*) AS count FROM ${T} GROUP BY queue, status`;

/** Counts of one queue. Params: queue. */
export const COUNT_QUEUE_SQL = `SELECT queue, status, COUNT(*) AS count FROM ${T} WHERE queue = ? GROUP BY queue, status`;
