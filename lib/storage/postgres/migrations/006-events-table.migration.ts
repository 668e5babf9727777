import { EVENT_READERS_TABLE, EVENTS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * A short-lived log of job events, one row per batch a process published, that processes publish for each other (`clusterEvents`). Readers follow it by id;
 * writers take a transaction-scoped advisory lock before inserting (see `sql/events.sql.ts`), so ids become visible
 * in order and a reader's cursor never passes a row that commits later.
 */
export const POSTGRES_MIGRATION_EVENTS: PostgresMigration = {
  version: 6,
  name: 'events-table',
  statements: (s) => [
    `CREATE TABLE IF NOT EXISTS ${s}.${EVENTS_TABLE} (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    origin     text    NOT NULL,
    created_at bigint NOT NULL,
    events     text    NOT NULL
  )`,
    `CREATE TABLE IF NOT EXISTS ${s}.${EVENT_READERS_TABLE} (
    origin  text   PRIMARY KEY,
    seen_at bigint NOT NULL
  )`,
  ],
};
