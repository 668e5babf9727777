import { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;
const S = SCHEDULES_TABLE;

/**
 * The first released SQLite schema (0.1.0, before the finished-jobs index): an index on every row's status.
 * Frozen: a later change is a new migration, never an edit here.
 */
export const SQLITE_MIGRATION_1: SchemaMigration = {
  version: 1,
  name: 'initial',
  statements: [
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
    // Counts, listings, retention and metrics by finish time (replaced in migration 2).
    `CREATE INDEX IF NOT EXISTS ${T}_status ON ${T} (queue, status, finished_at)`,
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
  ],
};
