/**
 * Every SQL statement of the SQLite backend, in one place. Parameters are positional `?` only (both
 * node-sqlite3 and better-sqlite3 bind them). Statements that return rows through RETURNING start with a
 * comment: TypeORM's sqlite runner sends SQL that starts with "UPDATE "/"INSERT " to run(), which drops rows.
 */
import { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../sqlite-queue.constants';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;
const S = SCHEDULES_TABLE;

/** Columns every job-returning statement selects, in the order `toJobRecord` reads them. */
const JOB_COLUMNS =
  'id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, ' +
  'locked_by, lease_until, result, error, progress, created_at, started_at, finished_at, updated_at';

/**
 * What a worker needs of a job it claimed, as two columns: the payload, and the rest packed in one JSON array in
 * the order `toClaimedRecord` reads it. The drivers build one JavaScript property per column and row, which cost
 * twice as much as one JSON.parse of the packed array (measured with node-sqlite3 on 200-row claims).
 */
const CLAIMED_COLUMNS =
  'data, json_array(id, queue, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until) AS m';

/**
 * The statement's own clock in epoch ms: leases are measured from when a statement runs, which on SQLite can be up to
 * the busy timeout after it was queued (another process held the write lock). julianday('now') works on every SQLite
 * version (unixepoch('subsec') needs 3.42), and SQLite reads the same OS clock as Date.now().
 */
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)`;

/** Columns of a schedule row. */
const SCHEDULE_COLUMNS = 'queue, name, cron, every_ms, timezone, data, options, next_run_at';

/** Idempotent schema: safe to run at every boot, from several processes at once. */
export const SCHEMA_SQL: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS ${T} (
    -- AUTOINCREMENT: never reuse the id of a deleted job (retention, remove, clean), so a stale id cannot name a newer job.
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    queue        TEXT    NOT NULL,
    status       TEXT    NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled')),
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
    progress     TEXT,
    schedule_key TEXT,
    created_at   INTEGER NOT NULL,
    started_at   INTEGER,
    finished_at  INTEGER,
    updated_at   INTEGER NOT NULL
  )`,
  // The claim walks this per queue in exactly its ORDER BY, touching only due pending rows.
  `CREATE INDEX IF NOT EXISTS ${T}_claim ON ${T} (queue, priority DESC, run_at, id) WHERE status = 'pending'`,
  // Running rows are few (at most the sum of all concurrencies): one small index serves lease recovery (by
  // expiry); the heartbeat names its jobs by id. Every index is paid on each claim and completion.
  `CREATE INDEX IF NOT EXISTS ${T}_running ON ${T} (lease_until) WHERE status = 'running'`,
  // Finished jobs only: finished_at is set exactly when a job becomes completed, failed or cancelled. Serves
  // counts, listings, retention and metrics by finish time; queries name `finished_at IS NOT NULL` (or compare
  // finished_at) so SQLite may use it. Pending and running rows stay out: an index on every row's status was
  // rewritten by both the claim and the completion, about 15 % of SQLite's time per job.
  `CREATE INDEX IF NOT EXISTS ${T}_finished ON ${T} (queue, status, finished_at) WHERE finished_at IS NOT NULL`,
  // Its predecessor (0.1.0 before this index), dropped from existing databases.
  `DROP INDEX IF EXISTS ${T}_status`,
  // One job per schedule occurrence, ever: the database decides which process enqueues it.
  `CREATE UNIQUE INDEX IF NOT EXISTS ${T}_schedule_key ON ${T} (queue, schedule_key) WHERE schedule_key IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS ${Q} (
    queue      TEXT    PRIMARY KEY,
    paused     INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS ${S} (
    queue       TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    cron        TEXT,
    every_ms    INTEGER,
    timezone    TEXT,
    data        TEXT    NOT NULL,
    options     TEXT,
    next_run_at INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    PRIMARY KEY (queue, name)
  )`,
  `CREATE INDEX IF NOT EXISTS ${S}_due ON ${S} (next_run_at)`,
  // The database, not a read-then-write in JavaScript, keeps one live job per key and queue.
  `CREATE UNIQUE INDEX IF NOT EXISTS ${T}_unique_key ON ${T} (queue, unique_key)
     WHERE unique_key IS NOT NULL AND status IN ('pending', 'running')`,
];

/**
 * Inserts a whole batch from one JSON parameter, so any number of jobs is one atomic statement with no
 * bound-variable limit. Params: queue, now, now, JSON array of [data, priority, runAt, maxAttempts,
 * backoff, timeout, key]. Only ids come back (the rest is what we sent); in insertion order once sorted.
 */
export const ENQUEUE_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, updated_at)
  SELECT ?, 'pending', j.value ->> 0, j.value ->> 1, j.value ->> 2, 0, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, ?, ?
  FROM json_each(?) AS j WHERE true ORDER BY j.key
  ON CONFLICT DO NOTHING
  RETURNING id, unique_key`;

/**
 * One job: the common `add()`, as a plain VALUES insert (about twice as fast as the JSON form for one row).
 * Params: queue, data, priority, runAt, maxAttempts, backoff, timeout, key, now, now.
 */
export const ENQUEUE_ONE_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, updated_at)
  VALUES (?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING
  RETURNING id, unique_key`;

/** Live jobs holding some keys. Params: queue, JSON array of keys. */
export const FIND_BY_KEYS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND status IN ('pending', 'running') AND unique_key IN (SELECT value FROM json_each(?))`;

const claimSqlCache = new Map<number, string>();

/**
 * One statement that claims for several queues at once: a UNION ALL of one index walk per queue, each
 * with its own LIMIT, so a queue never takes more than its free slots and a full queue costs nothing.
 * Params: workerId, leaseDuration, now, now, then (queue, now, queue, limit) per queue.
 */
export function claimSql(queueCount: number): string {
  let sql = claimSqlCache.get(queueCount);
  if (sql === undefined) {
    // The paused test names the queue by parameter, not by the row's column: uncorrelated, SQLite evaluates it
    // once per branch instead of once per candidate row.
    const branch = `SELECT id FROM (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ?
      AND NOT EXISTS (SELECT 1 FROM ${Q} WHERE ${Q}.queue = ? AND paused = 1)
      ORDER BY priority DESC, run_at, id LIMIT ?)`;
    sql = `/* claim */ UPDATE ${T}
      SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ${NOW_MS} + ?, started_at = ?, updated_at = ?
      WHERE id IN (${Array.from({ length: queueCount }, () => branch).join(' UNION ALL ')})
      RETURNING ${CLAIMED_COLUMNS}`;
    claimSqlCache.set(queueCount, sql);
  }
  return sql;
}

/**
 * Completes many attempts in one statement, each fenced by its own attempt number. Params: now, now,
 * JSON array of [id, attempt, result JSON or null], workerId. Returns the ids that were still ours.
 * The unary + keeps the planner off the owner index: walking the batch and looking each row up by id is
 * O(batch), walking every running row of the worker against the batch is O(running x batch).
 */
export const COMPLETE_MANY_SQL = `/* complete */ UPDATE ${T}
  SET status = 'completed', result = j.value ->> 2, finished_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  FROM json_each(?) AS j
  WHERE ${T}.id = j.value ->> 0 AND ${T}.attempts = j.value ->> 1 AND +${T}.locked_by = ? AND ${T}.status = 'running'
  RETURNING ${T}.id`;

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

/**
 * One heartbeat for the jobs this process holds, by id: a running row under the same worker id that the process
 * does not hold (left by a crashed process that had the same fixed workerId) must be left to expire.
 * Params: leaseDuration, now, JSON array of ids, workerId.
 */
export const EXTEND_LEASES_SQL = `UPDATE ${T} SET lease_until = ${NOW_MS} + ?, updated_at = ?
  WHERE id IN (SELECT value FROM json_each(?)) AND locked_by = ? AND status = 'running'`;

/**
 * Takes back running jobs whose owner stopped renewing their lease. The crashed run counted as an
 * attempt, so a job that kills its process every time ends failed instead of looping. A requeued job is due
 * after a random delay below the jitter window (at least 1: `% 0` is NULL), drawn per row, so jobs that died
 * together are claimed apart. Params: now, now, jitter window, now, now.
 */
export const RECOVER_EXPIRED_SQL = `/* recover */ UPDATE ${T}
  SET status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'pending' END,
      error = json_object(
        'name', 'LeaseExpiredError',
        'message', 'Lease expired during attempt ' || attempts || ': worker ' || COALESCE(locked_by, '?') ||
                   ' stopped renewing it (the process crashed, hung or was killed)',
        'attempt', attempts),
      finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,
      run_at = CASE WHEN attempts >= max_attempts THEN run_at ELSE ? + abs(random() % ?) END,
      locked_by = NULL, lease_until = NULL, updated_at = ?
  WHERE status = 'running' AND lease_until < ?
  RETURNING id, queue, status, attempts, run_at`;

/** Params: progress, now, id, workerId, attempt. */
export const UPDATE_PROGRESS_SQL = `UPDATE ${T} SET progress = ?, updated_at = ?
  WHERE id = ? AND locked_by = ? AND attempts = ? AND status = 'running'`;

/** Attempts of a worker that were cancelled meanwhile. Params: workerId, JSON array of [id, attempt]. */
export const FIND_CANCELLED_SQL = `SELECT id FROM ${T}
  WHERE locked_by = ? AND status = 'cancelled'
    AND (id, attempts) IN (SELECT j.value ->> 0, j.value ->> 1 FROM json_each(?) AS j)`;

/** Params: id. */
export const GET_JOB_SQL = `SELECT ${JOB_COLUMNS} FROM ${T} WHERE id = ?`;

/**
 * Counts by queue and status, each status group read from its own partial index (claim, running, finished).
 * `queueFilter` is empty or `AND queue = ?` (then the queue is a parameter of each of the three branches).
 */
function countSql(queueFilter: string): string {
  return `SELECT queue, 'pending' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'pending' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, 'running' AS status, COUNT(*) AS count FROM ${T} WHERE status = 'running' ${queueFilter} GROUP BY queue
    UNION ALL SELECT queue, status, COUNT(*) AS count FROM ${T} WHERE finished_at IS NOT NULL ${queueFilter} GROUP BY queue, status`;
}

/** Counts of every queue. */
export const COUNT_ALL_SQL = countSql('');

/** Counts of one queue. Params: queue, queue, queue. */
export const COUNT_QUEUE_SQL = countSql('AND queue = ?');

/** Params: queue, limit, offset. */
export const LIST_JOBS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? ORDER BY id DESC LIMIT ? OFFSET ?`;

/** Pending or running jobs. Params: queue, status, limit, offset. */
export const LIST_JOBS_BY_STATUS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T} WHERE queue = ? AND status = ? ORDER BY id DESC LIMIT ? OFFSET ?`;

/** Completed, failed or cancelled jobs, through the finished index. Params: queue, status, limit, offset. */
export const LIST_FINISHED_JOBS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND status = ? AND finished_at IS NOT NULL ORDER BY id DESC LIMIT ? OFFSET ?`;

export const PAUSED_QUEUES_SQL = `SELECT queue FROM ${Q} WHERE paused = 1`;

/** Params: queue, paused, now. */
export const SET_PAUSED_SQL = `INSERT INTO ${Q} (queue, paused, updated_at) VALUES (?, ?, ?)
  ON CONFLICT (queue) DO UPDATE SET paused = excluded.paused, updated_at = excluded.updated_at`;

/** Params: id. */
export const JOB_STATUS_SQL = `SELECT status FROM ${T} WHERE id = ?`;

/** Keeps locked_by so the owner can find out. Params: now, now, id. */
export const CANCEL_SQL = `UPDATE ${T} SET status = 'cancelled', finished_at = ?, updated_at = ?, lease_until = NULL
  WHERE id = ? AND status IN ('pending', 'running')`;

/** A finished job may be retried only while no live job of its queue holds its key (the unique key index). */
const KEY_NOT_HELD = `(unique_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${T} AS live
    WHERE live.queue = ${T}.queue AND live.unique_key = ${T}.unique_key AND live.status IN ('pending', 'running')))`;

/** Of several failed jobs sharing a key, only the newest is retried: two pending at once would break the index. */
const NEWEST_FAILED_OF_KEY = `(unique_key IS NULL OR id = (SELECT MAX(peer.id) FROM ${T} AS peer
    WHERE peer.queue = ${T}.queue AND peer.unique_key = ${T}.unique_key AND peer.status = 'failed'))`;

/**
 * Params: now, now, JSON array of ids. OR IGNORE keeps a row that would still collide on its key (it stays
 * finished) instead of failing the statement and retrying nothing.
 */
export const RETRY_FINISHED_BY_IDS_SQL = `/* retry */ UPDATE OR IGNORE ${T}
  SET status = 'pending', attempts = 0, run_at = ?, updated_at = ?, finished_at = NULL, locked_by = NULL, lease_until = NULL
  WHERE status IN ('failed', 'cancelled') AND id IN (SELECT value FROM json_each(?)) AND ${KEY_NOT_HELD}
  RETURNING id`;

/** Params: now, now, queue. */
export const RETRY_FINISHED_OF_QUEUE_SQL = `/* retry */ UPDATE OR IGNORE ${T}
  SET status = 'pending', attempts = 0, run_at = ?, updated_at = ?, finished_at = NULL, locked_by = NULL, lease_until = NULL
  WHERE queue = ? AND status = 'failed' AND ${KEY_NOT_HELD} AND ${NEWEST_FAILED_OF_KEY}
  RETURNING id`;

/**
 * Failed jobs of a queue, finished no later than a time, that a live job's key keeps from being retried, with
 * that job. Params: queue, finishedAtMost.
 */
export const KEY_BLOCKED_FAILED_SQL = `SELECT failed.id AS id, failed.unique_key AS unique_key, live.id AS holder_id
  FROM ${T} AS failed JOIN ${T} AS live
    ON live.queue = failed.queue AND live.unique_key = failed.unique_key AND live.status IN ('pending', 'running')
  WHERE failed.queue = ? AND failed.status = 'failed' AND failed.finished_at IS NOT NULL AND failed.finished_at <= ?
    AND failed.unique_key IS NOT NULL
  ORDER BY failed.id`;

/**
 * Deletes a job unless it is running, and says what it deleted: the check and the delete are one statement, so
 * a claim cannot slip in between them. No row back: no such job, or it is running. Params: id.
 */
export const REMOVE_SQL = `/* remove */ DELETE FROM ${T} WHERE id = ? AND status <> 'running' RETURNING status`;

/**
 * Deletes, in one bounded statement, the finished jobs of one queue and status that fall outside the
 * newest `keep` or finished before a cutoff. Params: queue, status, cutoff, queue, status, keep, limit.
 */
export const APPLY_RETENTION_SQL = `DELETE FROM ${T} WHERE id IN (
  SELECT id FROM ${T} WHERE queue = ? AND status = ? AND finished_at IS NOT NULL AND (
    finished_at < ?
    OR id NOT IN (SELECT id FROM ${T} WHERE queue = ? AND status = ? AND finished_at IS NOT NULL ORDER BY finished_at DESC, id DESC LIMIT ?)
  ) LIMIT ?)`;

/**
 * Finished jobs by finish time, pending ones by creation time, each through its own index.
 * Params: queue, cutoff, JSON array of statuses, queue, cutoff, the same JSON array.
 */
export const CLEAN_SQL = `DELETE FROM ${T} WHERE id IN (
  SELECT id FROM ${T} WHERE queue = ? AND finished_at IS NOT NULL AND finished_at < ? AND status IN (SELECT value FROM json_each(?))
  UNION ALL
  SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND created_at < ? AND 'pending' IN (SELECT value FROM json_each(?)))`;

/** Walks the finished index queue by queue instead of scanning the table. Params: since, limit. */
export const FINISHED_SINCE_SQL = `SELECT queue, status, started_at - run_at AS wait_ms, finished_at - started_at AS run_ms, finished_at
  FROM ${T} WHERE queue IN (SELECT DISTINCT queue FROM ${T} WHERE finished_at IS NOT NULL)
    AND status IN ('completed', 'failed', 'cancelled') AND finished_at >= ?
  ORDER BY finished_at DESC LIMIT ?`;

/** Params: now. */
export const OLDEST_DUE_PENDING_SQL = `SELECT queue, MIN(run_at) AS run_at FROM ${T}
  WHERE status = 'pending' AND run_at <= ? GROUP BY queue`;

/** Params: queue, name, cron, every, timezone, data, options, nextRunAt, now, now. */
export const UPSERT_SCHEDULE_SQL = `INSERT INTO ${S} (${SCHEDULE_COLUMNS}, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (queue, name) DO UPDATE SET cron = excluded.cron, every_ms = excluded.every_ms,
    timezone = excluded.timezone, data = excluded.data, options = excluded.options,
    next_run_at = excluded.next_run_at, updated_at = excluded.updated_at`;

/** Params: queue, name. */
export const REMOVE_SCHEDULE_SQL = `DELETE FROM ${S} WHERE queue = ? AND name = ?`;

export const LIST_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} ORDER BY queue, name`;

/** Params: now. */
export const DUE_SCHEDULES_SQL = `SELECT ${SCHEDULE_COLUMNS} FROM ${S} WHERE next_run_at <= ?`;

/**
 * Inserts one occurrence's job; the unique schedule_key index makes a second insert of the same occurrence,
 * from any process, a no-op. Params: queue, data, priority, runAt, maxAttempts, backoff, timeout, key,
 * scheduleKey, now, now.
 */
export const ENQUEUE_OCCURRENCE_SQL = `INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, schedule_key, created_at, updated_at)
  VALUES (?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

/** Advances a schedule only from the occurrence we saw (compare-and-set). Params: nextRunAt, now, queue, name, seenNextRunAt. */
export const ADVANCE_SCHEDULE_SQL = `UPDATE ${S} SET next_run_at = ?, updated_at = ?
  WHERE queue = ? AND name = ? AND next_run_at = ?`;
