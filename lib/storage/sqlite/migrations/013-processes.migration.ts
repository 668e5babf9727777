import { PROCESSES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

/**
 * Which process runs which processors: one row per process (`workerId`) and queue, with the
 * processor's concurrency, when the process started, when it last announced itself and until when that announcement
 * holds, and when it shut down. The queues table's `processor_until` says only that some process covers a queue;
 * this says which, so an idle process shows on the dashboard too. Written once per announcement period (30 s by
 * default) by each processing process, never on the hot path. WITHOUT ROWID: the primary key is how every statement
 * reaches a row, and the table stays a few rows per process.
 */
export const SQLITE_MIGRATION_PROCESSES: SchemaMigration = {
  version: 13,
  name: 'processes',
  statements: [
    `CREATE TABLE IF NOT EXISTS ${PROCESSES_TABLE} (
    worker_id   TEXT    NOT NULL,
    queue       TEXT    NOT NULL,
    concurrency INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    seen_at     INTEGER NOT NULL,
    until       INTEGER NOT NULL,
    stopped_at  INTEGER,
    PRIMARY KEY (worker_id, queue)
  ) WITHOUT ROWID`,
  ],
};
