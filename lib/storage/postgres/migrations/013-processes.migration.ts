import { PROCESSES_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/** Which process runs which processors (see the SQLite step of the same name): one row per process and queue. */
export const POSTGRES_MIGRATION_PROCESSES: PostgresMigration = {
  version: 13,
  name: 'processes',
  statements: (s) => [
    `CREATE TABLE IF NOT EXISTS ${s}.${PROCESSES_TABLE} (
    worker_id   text    NOT NULL,
    queue       text    NOT NULL,
    concurrency integer NOT NULL,
    started_at  bigint  NOT NULL,
    seen_at     bigint  NOT NULL,
    until       bigint  NOT NULL,
    stopped_at  bigint,
    PRIMARY KEY (worker_id, queue)
  )`,
  ],
};
