'use strict';
// Raw SQL on the library's own table, for the no-library ceilings and for filling big backlogs fast.
// The schema (table + indexes) is taken from the built library so both always match.
const fs = require('node:fs');
const path = require('node:path');
const { DIST_DIR } = require('./common');

// Since the versioned migrations, the schema is every step of getSqliteMigrations() (DDL and its recording, all
// idempotent); builds from before them (for A/B runs) exported SCHEMA_SQL from sqlite-schema.js or sqlite-queue.sql.js.
const SCHEMA_SQL = loadSchemaSql();
const { JOBS_TABLE: T } = require(DIST_DIR);

function loadSchemaSql() {
  const schemaModule = requireFirst(
    ['sqlite-schema.js', 'sqlite-queue.sql.js'].map((file) => path.join(DIST_DIR, 'storage', 'sqlite', file)),
  );
  if (typeof schemaModule.getSqliteMigrations === 'function') return schemaModule.getSqliteMigrations().flatMap((step) => step.sql);
  return schemaModule.SCHEMA_SQL;
}

function requireFirst(files) {
  const found = files.find((file) => fs.existsSync(file));
  if (!found) throw new Error(`none of ${files.join(', ')} exists: build the library first`);
  return require(found);
}

const PRAGMAS = ['PRAGMA journal_mode = WAL', 'PRAGMA synchronous = NORMAL', 'PRAGMA busy_timeout = 5000'];

/** Columns set by an insert, and the values of one pending job (data, queue and time vary). */
const INSERT_COLUMNS = '(queue, status, data, priority, run_at, attempts, max_attempts, created_at, updated_at)';
const ROW_PLACEHOLDERS = "(?, 'pending', ?, 0, ?, 0, 3, ?, ?)";
const rowParams = (queue, data, time) => [queue, data, time, time, time];

/** INSERT of `rows` jobs in one statement (multi-row VALUES). */
const insertSql = (rows) => `INSERT INTO ${T} ${INSERT_COLUMNS} VALUES ${Array(rows).fill(ROW_PLACEHOLDERS).join(', ')}`;

/** Claims up to `limit` due jobs of one queue. Params: workerId, leaseUntil, now, now, queue, now, limit. */
const CLAIM_SQL = `UPDATE ${T}
  SET status = 'running', attempts = attempts + 1, locked_by = ?, lease_until = ?, started_at = ?, updated_at = ?
  WHERE id IN (SELECT id FROM ${T} WHERE queue = ? AND status = 'pending' AND run_at <= ? ORDER BY priority DESC, run_at, id LIMIT ?)
  RETURNING id, data`;

/** Completes a batch of jobs. Params: now, now, JSON array of ids. */
const COMPLETE_BATCH_SQL = `UPDATE ${T}
  SET status = 'completed', finished_at = ?, updated_at = ?, locked_by = NULL, lease_until = NULL
  WHERE id IN (SELECT value FROM json_each(?)) AND status = 'running'`;

module.exports = { T, SCHEMA_SQL, PRAGMAS, insertSql, rowParams, CLAIM_SQL, COMPLETE_BATCH_SQL };
