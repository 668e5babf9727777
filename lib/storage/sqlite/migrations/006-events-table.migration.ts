import { EVENT_READERS_TABLE, EVENTS_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const E = EVENTS_TABLE;

/**
 * A short-lived log of job events, one row per batch a process published, that processes publish for each other (`clusterEvents`). AUTOINCREMENT keeps ids
 * growing even after pruning empties the table: readers follow it by id, and a reused id would hide events. Writes
 * are serialized by SQLite, so ids appear in commit order and a reader's cursor never skips a row.
 * Readers leave a heartbeat in the readers table; publishers write only while one is recent, so the hot path pays
 * nothing while nobody listens.
 */
export const SQLITE_MIGRATION_EVENTS: SchemaMigration = {
  version: 6,
  name: 'events-table',
  statements: [
    `CREATE TABLE IF NOT EXISTS ${E} (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    origin     TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    events     TEXT    NOT NULL
  )`,
    `CREATE TABLE IF NOT EXISTS ${EVENT_READERS_TABLE} (
    origin  TEXT    PRIMARY KEY,
    seen_at INTEGER NOT NULL
  )`,
  ],
};
