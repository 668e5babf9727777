'use strict';
// The two backends as the orchestrator sees them: what the children are told to open, how the orchestrator reads
// the job table (its own connection), and on PostgreSQL the faults it injects (backend terminations, a restart).
const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

const JOBS = 'nest_queue_jobs';

/**
 * Completed rows of a queue that nothing holds once finished (no flow parent, no dependents, no throttle window):
 * those a completion deleting its row leaves none of (delete mode, chaos.js).
 */
const COMPLETED_NOT_HELD_SQL = `SELECT count(*) AS n FROM ${JOBS}
  WHERE queue = ? AND status = 'completed' AND parent_id IS NULL AND dependents IS NULL AND key_until IS NULL`;

/** The heartbeat of processes waiting for jobs (`waitUntilFinished`): while fresh, completions mark instead of deleting. */
const WAITERS_SQL = `SELECT max(seen_at) AS t FROM nest_queue_event_readers WHERE origin = '~finish-waiters'`;

/** One job row as the analysis reads it, whichever backend (ids as strings, times as numbers, data parsed). */
/** The stored run history (JSON text), or [] when there is none or it does not parse. */
function parseRuns(text) {
  if (text === null || text === undefined) return [];
  try {
    const runs = JSON.parse(text);
    return Array.isArray(runs) ? runs : [];
  } catch {
    return [];
  }
}

function toRow(row) {
  let data = {};
  try {
    data = JSON.parse(row.data);
  } catch {
    // A payload that is not JSON is no soak payload: it has no marker, and the analysis treats it as plain.
  }
  return {
    id: String(row.id),
    queue: row.queue,
    status: row.status,
    attempts: Number(row.attempts),
    parentId: row.parent_id === null ? null : String(row.parent_id),
    onChildFailure: row.on_child_failure,
    data,
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    // A dead letter's origin: { queue, jobId, error } (JSON text on SQLite, json on PostgreSQL), else null.
    origin: row.origin === null || row.origin === undefined ? null : typeof row.origin === 'string' ? JSON.parse(row.origin) : row.origin,
    maxAttempts: Number(row.max_attempts),
    // The last error (JSON text: { message, ... }) and the run history (JSON text: the attempts that ended other than
    // by completing, newest last, with their owner): what the report prints of a job that failed or ran again.
    error: row.error ?? null,
    runs: parseRuns(row.runs),
  };
}

/** SQLite: one file in the run's directory, shared by every child. */
function sqliteBackend({ driver }) {
  let db;
  const open = (database) => {
    if (db) return db;
    if (!fs.existsSync(database)) return undefined;
    const Database = require('better-sqlite3');
    db = new Database(database, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  };
  let spec;
  const hasTable = (conn) => conn && conn.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).get(JOBS);
  return {
    name: 'sqlite',
    label: `SQLite (${driver})`,
    async prepare(dir) {
      spec = { kind: 'sqlite', database: path.join(dir, 'queue.sqlite'), driver };
      return spec;
    },
    /** Pending + running jobs, or null before the table exists. */
    async openJobs() {
      const conn = open(spec.database);
      if (!hasTable(conn)) return null;
      return conn.prepare(`SELECT count(*) AS n FROM ${JOBS} WHERE status IN ('pending', 'running')`).get().n;
    },
    async completedRowsNotHeld(queue) {
      const conn = open(spec.database);
      if (!hasTable(conn)) return null;
      return conn.prepare(COMPLETED_NOT_HELD_SQL).get(queue).n;
    },
    async waitersSeenAt() {
      const conn = open(spec.database);
      if (!hasTable(conn)) return null;
      const row = conn.prepare(WAITERS_SQL).get();
      return row.t === null ? null : Number(row.t);
    },
    async rows() {
      const conn = open(spec.database);
      if (!hasTable(conn)) return [];
      return conn
        .prepare(
          `SELECT id, queue, status, attempts, max_attempts, parent_id, on_child_failure, data, finished_at, origin, error, runs FROM ${JOBS}`,
        )
        .all()
        .map(toRow);
    },
    /**
     * Holds the file's write lock for `ms` (BEGIN IMMEDIATE on a connection of the orchestrator's own): every write of
     * every child waits meanwhile (claims, outcomes, snoozes, adds), within the module's busy timeout.
     */
    async holdWriteLock(ms) {
      const conn = open(spec.database);
      if (!hasTable(conn)) return 0;
      conn.exec('BEGIN IMMEDIATE');
      try {
        await new Promise((resolve) => setTimeout(resolve, ms));
      } finally {
        conn.exec('COMMIT');
      }
      return ms;
    },
    async close() {
      if (db) db.close();
      db = undefined;
    },
  };
}

/**
 * PostgreSQL: database `test` of the local server, schema `soak_queue`, and a role of its own, `queue_soak`, for
 * every child's connections: the faults are aimed at that role's backends only, never at the connections of other
 * programs using the same server (the library names all its connections `nest-queue`, tests included).
 */
function postgresBackend({ adminUrl, keep }) {
  const { Client } = require('pg');
  const ROLE = 'queue_soak';
  const SCHEMA = 'soak_queue';
  const childUrl = () => {
    const url = new URL(adminUrl);
    url.username = ROLE;
    url.password = '';
    return url.toString();
  };
  const withClient = async (fn) => {
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const tableExists = async (client) => (await client.query(`SELECT to_regclass($1) AS t`, [`${SCHEMA}.${JOBS}`])).rows[0].t !== null;
  return {
    name: 'postgres',
    label: 'PostgreSQL',
    async prepare() {
      await withClient(async (client) => {
        const exists = await client.query(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [ROLE]);
        if (!exists.rowCount) await client.query(`CREATE ROLE ${ROLE} LOGIN`);
        const db = (await client.query(`SELECT current_database() AS d`)).rows[0].d;
        await client.query(`GRANT CREATE ON DATABASE "${db}" TO ${ROLE}`);
        await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
      });
      return { kind: 'postgres', url: childUrl(), schema: SCHEMA };
    },
    async openJobs() {
      return withClient(async (client) => {
        if (!(await tableExists(client))) return null;
        const result = await client.query(`SELECT count(*)::int AS n FROM ${SCHEMA}.${JOBS} WHERE status IN ('pending', 'running')`);
        return result.rows[0].n;
      });
    },
    async completedRowsNotHeld(queue) {
      return withClient(async (client) => {
        if (!(await tableExists(client))) return null;
        const sql = COMPLETED_NOT_HELD_SQL.replace(JOBS, `${SCHEMA}.${JOBS}`).replace('?', '$1');
        return Number((await client.query(sql, [queue])).rows[0].n);
      });
    },
    async waitersSeenAt() {
      return withClient(async (client) => {
        if (!(await tableExists(client))) return null;
        const t = (await client.query(WAITERS_SQL.replace('nest_queue_event_readers', `${SCHEMA}.nest_queue_event_readers`))).rows[0].t;
        return t === null ? null : Number(t);
      });
    },
    async rows() {
      return withClient(async (client) => {
        if (!(await tableExists(client))) return [];
        const sql = `SELECT id, queue, status, attempts, max_attempts, parent_id, on_child_failure, data, finished_at, origin, error, runs FROM ${SCHEMA}.${JOBS}`;
        return (await client.query(sql)).rows.map(toRow);
      });
    },
    /** Terminates a random share (at least one) of the soak role's backends; returns how many. */
    async terminateBackends(random) {
      return withClient(async (client) => {
        const { rows } = await client.query(
          `SELECT pid FROM pg_stat_activity WHERE usename = $1 AND datname = current_database() AND pid <> pg_backend_pid()`,
          [ROLE],
        );
        const chosen = rows.filter(() => random.chance(0.4));
        if (!chosen.length && rows.length) chosen.push(random.pick(rows));
        let terminated = 0;
        for (const { pid } of chosen) {
          const result = await client.query(`SELECT pg_terminate_backend($1) AS ok`, [pid]);
          if (result.rows[0].ok) terminated++;
        }
        return terminated;
      });
    },
    /** Restarts the local cluster (fast shutdown: open sessions are cut); resolves with the time it took. */
    async restartServer() {
      const version = fs.readdirSync('/etc/postgresql')[0];
      const started = Date.now();
      const args = ['--skip-systemctl-redirect', '-m', 'fast', version, 'main', 'restart'];
      await new Promise((resolve, reject) =>
        execFile('pg_ctlcluster', args, { timeout: 60_000 }, (error, _out, stderr) =>
          error ? reject(new Error(`pg_ctlcluster restart failed: ${error.message} ${stderr}`)) : resolve(),
        ),
      );
      return Date.now() - started;
    },
    async close() {
      if (keep) return;
      await withClient((client) => client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`)).catch(() => undefined);
    },
  };
}

/** Whether a PostgreSQL server answers at `adminUrl` (within 3 s). */
async function postgresAnswers(adminUrl) {
  let Client;
  try {
    ({ Client } = require('pg'));
  } catch {
    return false;
  }
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

module.exports = { sqliteBackend, postgresBackend, postgresAnswers };
