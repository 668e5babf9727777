import { JOBS_TABLE, QUEUES_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * Job names, job logs, per-job removal, and which queues some process has a processor for. Nullable columns
 * without a default: PostgreSQL adds them without rewriting the table, and existing rows read NULL.
 */
export const POSTGRES_MIGRATION_3: PostgresMigration = {
  version: 3,
  name: 'job-names',
  statements: (s) => [
    // What the job is, inside its queue (BullMQ's job name): shown, filtered on, never part of any index.
    `ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS name text`,
    // JSON array of the lines `job.log()` stored, bounded (see job-logs.util.ts).
    `ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS logs text`,
    // Bit 1: delete the job once completed; bit 2: once failed (per-job removeOnComplete / removeOnFail).
    `ALTER TABLE ${s}.${JOBS_TABLE} ADD COLUMN IF NOT EXISTS remove_on integer`,
    // Epoch ms until which some processing process announced a processor for the queue (renewed while it runs).
    `ALTER TABLE ${s}.${QUEUES_TABLE} ADD COLUMN IF NOT EXISTS processor_until bigint`,
  ],
};
