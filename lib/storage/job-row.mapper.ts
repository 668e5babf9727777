import { JobStatus } from '../interfaces/job-info.interface';
import { JobRecord, NewJobRecord, ScheduleRecord } from './queue-storage.interface';

/** A row as a driver returns it. Both backends name their columns alike (snake_case). */
export type StorageRow = Record<string, unknown>;

/** A nullable number column (bigint columns arrive as strings from node-postgres). */
export function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** What a claim reads of a job; everything else about a claimed job is known. */
export type ClaimedJobFields = Pick<
  JobRecord,
  'id' | 'queue' | 'data' | 'priority' | 'runAt' | 'attempts' | 'maxAttempts' | 'backoff' | 'timeout' | 'key' | 'createdAt'
>;

/** The columns every job row has, claimed or not. Ids stay strings (PostgreSQL ids may exceed 2^53). */
export function claimedFieldsOf(row: StorageRow): ClaimedJobFields {
  return {
    id: String(row.id),
    queue: row.queue as string,
    data: row.data as string,
    priority: Number(row.priority),
    runAt: Number(row.run_at),
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    backoff: (row.backoff as string | null) ?? null,
    timeout: nullableNumber(row.timeout_ms),
    key: (row.unique_key as string | null) ?? null,
    createdAt: Number(row.created_at),
  };
}

/** A full job row, in storage-neutral form. */
export function toJobRecord(row: StorageRow): JobRecord {
  return {
    ...claimedFieldsOf(row),
    status: row.status as JobStatus,
    lockedBy: (row.locked_by as string | null) ?? null,
    leaseUntil: nullableNumber(row.lease_until),
    result: (row.result as string | null) ?? null,
    error: (row.error as string | null) ?? null,
    progress: (row.progress as string | null) ?? null,
    startedAt: nullableNumber(row.started_at),
    finishedAt: nullableNumber(row.finished_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The record of a job this worker just claimed: it runs, under this worker's lease, since now. Hot path: no spreads. */
export function claimedJobRecord(job: ClaimedJobFields, workerId: string, leaseUntil: number, now: number): JobRecord {
  return {
    id: job.id,
    queue: job.queue,
    status: 'running',
    data: job.data,
    priority: job.priority,
    runAt: job.runAt,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    backoff: job.backoff,
    timeout: job.timeout,
    key: job.key,
    lockedBy: workerId,
    leaseUntil,
    result: null,
    error: null,
    progress: null,
    createdAt: job.createdAt,
    startedAt: now,
    finishedAt: null,
    updatedAt: now,
  };
}

/** The record of a job just inserted: everything but its id is what was sent. */
export function newJobRecord(queue: string, job: NewJobRecord, id: string, now: number): JobRecord {
  return {
    id,
    queue,
    status: 'pending',
    data: job.data,
    priority: job.priority,
    runAt: job.runAt,
    attempts: 0,
    maxAttempts: job.maxAttempts,
    backoff: job.backoff,
    timeout: job.timeout,
    key: job.key,
    lockedBy: null,
    leaseUntil: null,
    result: null,
    error: null,
    progress: null,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    updatedAt: now,
  };
}

/** A schedule row. */
export function toScheduleRecord(row: StorageRow): ScheduleRecord {
  return {
    queue: String(row.queue),
    name: String(row.name),
    cron: (row.cron as string | null) ?? null,
    every: nullableNumber(row.every_ms),
    timezone: (row.timezone as string | null) ?? null,
    data: String(row.data),
    options: (row.options as string | null) ?? null,
    nextRunAt: Number(row.next_run_at),
  };
}
