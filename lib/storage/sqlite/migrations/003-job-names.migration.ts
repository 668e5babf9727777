import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

const T = JOBS_TABLE;
const Q = QUEUES_TABLE;

/**
 * Job names, job logs, per-job removal, and which queues some process has a processor for. Every column is
 * nullable without a default: SQLite adds such a column without rewriting the table, and existing rows read NULL
 * (no name, no log line, kept when finished, no processor announced). SQLite has no `ADD COLUMN IF NOT EXISTS`: this
 * step, unlike the earlier ones, fails when run twice by hand (the migrations table says whether it ran).
 */
export const SQLITE_MIGRATION_3: SchemaMigration = {
  version: 3,
  name: 'job-names',
  statements: [
    // What the job is, inside its queue (BullMQ's job name): shown, filtered on, never part of any index.
    `ALTER TABLE ${T} ADD COLUMN name TEXT`,
    // JSON array of the lines `job.log()` stored, bounded (see job-logs.util.ts).
    `ALTER TABLE ${T} ADD COLUMN logs TEXT`,
    // Bit 1: delete the job once completed; bit 2: once failed (per-job removeOnComplete / removeOnFail).
    `ALTER TABLE ${T} ADD COLUMN remove_on INTEGER`,
    // Epoch ms until which some processing process announced a processor for the queue (renewed while it runs).
    `ALTER TABLE ${Q} ADD COLUMN processor_until INTEGER`,
  ],
};
