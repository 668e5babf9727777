import { FinishedJobStatus, JobStatus } from '../../interfaces/job-info.interface';
import {
  CountRow,
  FinishedJobTiming,
  JobRecord,
  KeyBlockedJob,
  NewJobRecord,
  OldestDueRow,
  ProcessRow,
  RecoveredJob,
  ScheduleRecord,
  WaitedJobs,
} from '../queue-storage.interface';

/** A row as a driver returns it. Both backends name their columns alike (snake_case). */
export type StorageRow = Record<string, unknown>;

/** A nullable number column (bigint columns arrive as strings from node-postgres). */
export function nullableNumber(value: unknown): number | null {
  return value === null || value === undefined ? null : Number(value);
}

/** What a claim reads of a job; everything else about a claimed job is known. */
export type ClaimedJobFields = Pick<
  JobRecord,
  | 'id'
  | 'queue'
  | 'data'
  | 'priority'
  | 'runAt'
  | 'attempts'
  | 'maxAttempts'
  | 'backoff'
  | 'timeout'
  | 'key'
  | 'createdAt'
  | 'name'
  | 'removeOn'
  | 'group'
  | 'traceContext'
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
    name: (row.name as string | null) ?? null,
    removeOn: nullableNumber(row.remove_on),
    group: (row.job_group as string | null) ?? null,
    traceContext: (row.trace_context as string | null) ?? null,
  };
}

/** A full job row, in storage-neutral form. */
export function toJobRecord(row: StorageRow): JobRecord {
  return {
    ...claimedFieldsOf(row),
    // A debounced job keeps its key apart from `unique_key` (see schema step 10); either is its key.
    key: ((row.unique_key ?? row.debounce_key) as string | null) ?? null,
    origin: (row.origin as string | null) ?? null,
    snoozes: Number(row.snoozes ?? 0),
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

/**
 * A row of `getJob`, which also selects the run history (`runs`, `run_batch`): listings leave it out. Set only when
 * there is one, so a job's record reads the same from `getJob` as from the statement that enqueued it.
 */
export function toJobRecordWithRuns(row: StorageRow): JobRecord {
  const record = toJobRecord(row);
  if (typeof row.runs === 'string') record.runs = row.runs;
  if (row.run_batch !== null && row.run_batch !== undefined) record.runBatch = Number(row.run_batch);
  return record;
}

/**
 * The rows of a look at waited jobs (`waited_id` plus the job's columns, null when no job has that id): the
 * finished jobs, and the waited ids no job has any more.
 */
export function toWaitedJobs(rows: StorageRow[]): WaitedJobs {
  const waited: WaitedJobs = { finished: [], gone: [] };
  for (const row of rows) {
    if (row.id === null || row.id === undefined) waited.gone.push(String(row.waited_id));
    else waited.finished.push(toJobRecord(row));
  }
  return waited;
}

/**
 * The fields of a claimed job as both backends' claims pack them into one JSON array, in this order: id, queue,
 * priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, created_at, lease_until, name, remove_on,
 * job_group, trace_context. The drivers build one JavaScript property per column and row, which cost more than one
 * `JSON.parse` of the array on both: node-sqlite3 twice as much on 200-row claims, node-postgres (whose type parsers
 * run on every column) about 1.12x the client CPU per job end to end.
 */
type PackedClaimedFields = [
  id: number | string,
  queue: string,
  priority: number,
  runAt: number,
  attempts: number,
  maxAttempts: number,
  backoff: string | null,
  timeout: number | string | null,
  key: string | null,
  createdAt: number,
  leaseUntil: number,
  name: string | null,
  removeOn: number | null,
  group: string | null,
  traceContext: string | null,
];

/**
 * The record of a job this worker just claimed, from its packed fields (see `PackedClaimedFields`) and its payload: it
 * runs, under this worker's lease, since `now` (the claim's clock reading; the row's started_at stays unset). Hot
 * path: built directly, with no intermediate object per job. A `timeout_ms` of NaN or Infinity comes from PostgreSQL as
 * a JSON string, hence the `Number` on it.
 */
export function claimedRecordOf(packed: string, data: string, workerId: string, now: number): JobRecord {
  const [
    id,
    queue,
    priority,
    runAt,
    attempts,
    maxAttempts,
    backoff,
    timeout,
    key,
    createdAt,
    leaseUntil,
    name,
    removeOn,
    group,
    traceContext,
  ] = JSON.parse(packed) as PackedClaimedFields;
  return {
    id: String(id),
    queue,
    status: 'running',
    data,
    priority,
    runAt,
    attempts,
    maxAttempts,
    backoff,
    timeout: nullableNumber(timeout),
    key,
    name,
    removeOn,
    group,
    traceContext,
    lockedBy: workerId,
    leaseUntil,
    result: null,
    error: null,
    progress: null,
    createdAt,
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
    name: job.name ?? null,
    removeOn: job.removeOn ?? null,
    group: job.group ?? null,
    traceContext: job.traceContext ?? null,
    // A job just added is no dead letter (the trigger adds those) and has not snoozed.
    origin: null,
    snoozes: 0,
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

/** A row of a lease recovery (`id, queue, status, attempts, run_at`). */
export function toRecoveredJob(row: StorageRow): RecoveredJob {
  return {
    id: String(row.id),
    queue: String(row.queue),
    status: row.status as RecoveredJob['status'],
    attempts: Number(row.attempts),
    runAt: Number(row.run_at),
  };
}

/** A row of `finishedSince` (`queue, status, wait_ms, run_ms, finished_at`). */
export function toFinishedJobTiming(row: StorageRow): FinishedJobTiming {
  return {
    queue: String(row.queue),
    status: row.status as FinishedJobStatus,
    waitMs: nullableNumber(row.wait_ms),
    runMs: nullableNumber(row.run_ms),
    finishedAt: Number(row.finished_at),
  };
}

/** A row of `oldestDuePending` (`queue, run_at`). */
export function toOldestDueRow(row: StorageRow): OldestDueRow {
  return { queue: String(row.queue), runAt: Number(row.run_at) };
}

/** A row of the processes table (PostgreSQL's bigints arrive as strings). */
export function toProcessRow(row: StorageRow): ProcessRow {
  return {
    workerId: String(row.worker_id),
    queue: String(row.queue),
    concurrency: Number(row.concurrency),
    startedAt: Number(row.started_at),
    seenAt: Number(row.seen_at),
    until: Number(row.until),
    stoppedAt: nullableNumber(row.stopped_at),
  };
}

/** A row of the counts (`queue, status, count`; PostgreSQL's count arrives as a string). */
export function toCountRow(row: StorageRow): CountRow {
  return { queue: String(row.queue), status: row.status as JobStatus, count: Number(row.count) };
}

/** A row of `keyBlockedFailed` (`id, unique_key, holder_id`). */
export function toKeyBlockedJob(row: StorageRow): KeyBlockedJob {
  return { id: String(row.id), key: String(row.unique_key), holderId: String(row.holder_id) };
}

/** The `id` column of each row, as the string ids the storage interface speaks. */
export function idsOf(rows: StorageRow[]): string[] {
  return rows.map((row) => String(row.id));
}

/** The `queue` column of each row. */
export function queuesOf(rows: StorageRow[]): string[] {
  return rows.map((row) => String(row.queue));
}

/** The parameters of a schedule upsert, in the order of `SCHEDULE_COLUMNS`, then created_at and updated_at. */
export function scheduleParams(schedule: ScheduleRecord, now: number): unknown[] {
  const { queue, name, cron, every, timezone, data, options, nextRunAt } = schedule;
  return [queue, name, cron, every, timezone, data, options, nextRunAt, now, now];
}
