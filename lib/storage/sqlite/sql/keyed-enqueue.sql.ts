import { JobRecord, NewJobRecord } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { toJobRecord } from '../../shared/job-row.mapper';
import { StatementRunner } from '../../shared/statement-runner';
import { T } from './sqlite-sql-fragments';

/**
 * Throttled and debounced adds (schema step 10): one statement each, so each is atomic under SQLite's single writer.
 * Their columns after queue: data, priority, run_at, max_attempts, backoff, timeout_ms, name, remove_on, job_group,
 * trace_context: every column a plain add writes (`enqueue.sql.ts`), so a keyed job is grouped and traced like any other.
 */
const COLUMNS =
  'queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, name, remove_on, job_group, trace_context';

/** Inserts unless a window of the key is open (`jobs_key_window`) or a live job holds it (the unique key index). */
const INSERT_THROTTLED_SQL = `/* enqueue */ INSERT INTO ${T} (${COLUMNS}, unique_key, key_until, created_at, updated_at)
  SELECT ?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
  WHERE NOT EXISTS (SELECT 1 FROM ${T} AS held WHERE held.queue = ? AND held.unique_key = ? AND held.key_until > ?)
  ON CONFLICT DO NOTHING
  RETURNING id`;

/** The newest job holding a key: live, or with its window still open. */
const KEY_HOLDER_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND unique_key = ? AND (status IN ('pending', 'running') OR key_until > ?)
  ORDER BY id DESC LIMIT 1`;

/** The unstarted debounced job of a key takes the new data and options; its id, attempts and key stay. */
const REPLACE_DEBOUNCED_SQL = `/* debounce */ UPDATE ${T}
  SET data = ?, priority = ?, run_at = ?, max_attempts = ?, backoff = ?, timeout_ms = ?, name = ?, remove_on = ?,
    job_group = ?, trace_context = ?, updated_at = ?
  WHERE queue = ? AND debounce_key = ? AND status = 'pending' AND started_at IS NULL
  RETURNING ${JOB_COLUMNS}`;

/** One unstarted debounced job per key (`jobs_debounce_key`): a second insert is skipped. */
const INSERT_DEBOUNCED_SQL = `/* enqueue */ INSERT INTO ${T} (${COLUMNS}, debounce_key, created_at, updated_at)
  VALUES (?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING
  RETURNING id`;

function values(job: NewJobRecord): unknown[] {
  return [
    job.data,
    job.priority,
    job.runAt,
    job.maxAttempts,
    job.backoff,
    job.timeout,
    job.name ?? null,
    job.removeOn ?? null,
    job.group ?? null,
    job.traceContext ?? null,
  ];
}

/** See `KeyedBackend.insertThrottled`. */
export async function insertThrottled(runner: StatementRunner, queue: string, job: NewJobRecord, now: number): Promise<string | null> {
  const params = [queue, ...values(job), job.key, job.keyUntil, now, now, queue, job.key, now];
  const [row] = await runner.all(INSERT_THROTTLED_SQL, params);
  return row ? String(row.id) : null;
}

/** See `KeyedBackend.keyHolder`. */
export async function keyHolder(runner: StatementRunner, queue: string, key: string, now: number): Promise<JobRecord | null> {
  const [row] = await runner.all(KEY_HOLDER_SQL, [queue, key, now]);
  return row ? toJobRecord(row) : null;
}

/** See `KeyedBackend.replaceDebounced`. */
export async function replaceDebounced(runner: StatementRunner, queue: string, job: NewJobRecord, now: number): Promise<JobRecord | null> {
  const [row] = await runner.all(REPLACE_DEBOUNCED_SQL, [...values(job), now, queue, job.key]);
  return row ? toJobRecord(row) : null;
}

/** See `KeyedBackend.insertDebounced`. */
export async function insertDebounced(runner: StatementRunner, queue: string, job: NewJobRecord, now: number): Promise<string | null> {
  const [row] = await runner.all(INSERT_DEBOUNCED_SQL, [queue, ...values(job), job.key, now, now]);
  return row ? String(row.id) : null;
}
