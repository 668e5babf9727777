import { JobRecord, NewJobRecord } from '../../queue-storage.interface';
import { JOB_COLUMNS } from '../../shared/job-columns';
import { StorageRow, toJobRecord } from '../../shared/job-row.mapper';
import { InsertedRow } from '../../shared/pair-enqueued';
import { StatementRunner } from '../../shared/statement-runner';
import { T, newJobValues } from './sqlite-sql-fragments';

/**
 * Inserts a whole batch from one JSON parameter, so any number of jobs is one atomic statement with no
 * bound-variable limit. Only ids come back (the rest is what we sent); in insertion order once sorted.
 */
const ENQUEUE_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, job_group,
   trace_context, created_at, updated_at)
  SELECT ?, 'pending', j.value ->> 0, j.value ->> 1, j.value ->> 2, 0, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6,
    j.value ->> 7, j.value ->> 8, j.value ->> 9, j.value ->> 10, ?, ?
  FROM json_each(?) AS j WHERE true ORDER BY j.key
  ON CONFLICT DO NOTHING
  RETURNING id, unique_key`;

/**
 * Most rows of the VALUES form of a batch (`valuesSql`); a larger batch goes as the JSON form. Its 12 parameters a row
 * make 12,290 in all, under SQLite's default limit of 32,766 bound variables.
 */
const MAX_VALUES_ROWS = 1024;

/** The VALUES form's texts, one per power of two: the prepared-statement runner keeps one statement per text. */
const valuesSqlCache = new Map<number, string>();

/**
 * A batch of up to `rows` jobs (a power of two) as bound parameters: the jobs, then rows of NULLs up to `rows`,
 * which the WHERE leaves out. 0.75x the SQLite CPU per row of the JSON form on the library's schema (1,000-row
 * batches on better-sqlite3): SQLite reads bound values instead of parsing each job's JSON
 * array eleven times. Padding to powers of two keeps the texts few (ten); the VALUES rows are inserted in their
 * order, so ids follow the input order. Params: now, now, then per row the queue and `newJobValues`, group, trace.
 */
function valuesSql(rows: number): string {
  let sql = valuesSqlCache.get(rows);
  if (!sql) {
    const row = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
    sql = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, job_group,
   trace_context, created_at, updated_at)
  SELECT v.column1, 'pending', v.column2, v.column3, v.column4, 0, v.column5, v.column6, v.column7, v.column8, v.column9,
    v.column10, v.column11, v.column12, ?, ?
  FROM (VALUES ${Array.from({ length: rows }, () => row).join(', ')}) AS v WHERE v.column1 IS NOT NULL
  ON CONFLICT DO NOTHING
  RETURNING id, unique_key`;
    valuesSqlCache.set(rows, sql);
  }
  return sql;
}

/** The parameters of `valuesSql(rows)` for `jobs` (at most `rows` of them). */
function valuesParams(queue: string, jobs: NewJobRecord[], now: number, rows: number): unknown[] {
  const params: unknown[] = [now, now];
  for (const job of jobs) params.push(queue, ...newJobValues(job), job.group ?? null, job.traceContext ?? null);
  for (let padding = (rows - jobs.length) * 12; padding > 0; padding--) params.push(null);
  return params;
}

/**
 * False once the driver's SQLite refused the VALUES form for its bound variables (a build with a lower
 * SQLITE_MAX_VARIABLE_NUMBER, such as 999 before SQLite 3.32): the JSON form, which binds four, is used from then on.
 */
let valuesFormAllowed = true;

/** One job: the common `add()`, as a plain VALUES insert (about twice as fast as the JSON form for one row). */
const ENQUEUE_ONE_SQL = `/* enqueue */ INSERT INTO ${T}
  (queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, name, remove_on, job_group,
   trace_context, created_at, updated_at)
  VALUES (?, 'pending', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING
  RETURNING id, unique_key`;

/** Live jobs holding some keys. */
const FIND_BY_KEYS_SQL = `SELECT ${JOB_COLUMNS} FROM ${T}
  WHERE queue = ? AND status IN ('pending', 'running') AND unique_key IN (SELECT value FROM json_each(?))`;

/**
 * Inserts jobs of one queue, skipping those whose key a live job holds: the rows inserted, sorted by id (input order).
 * `bindsCheaply`: the driver binds parameters cheaply (better-sqlite3), so a batch goes in the VALUES form. node-sqlite3
 * converts every bound value on the main thread: with 12 a row the VALUES form cost it 1.24-1.36x the CPU of the JSON
 * form's one string per batch (1,000 concurrent adds).
 */
export async function insertJobs(
  runner: StatementRunner,
  queue: string,
  jobs: NewJobRecord[],
  now: number,
  bindsCheaply: boolean,
): Promise<InsertedRow[]> {
  const rows =
    jobs.length === 1
      ? await runner.all(ENQUEUE_ONE_SQL, enqueueOneParams(queue, jobs[0], now))
      : await insertBatch(runner, queue, jobs, now, bindsCheaply);
  return rows
    .map((row) => ({ id: Number(row.id), key: (row.unique_key as string | null) ?? null }))
    .sort((a, b) => a.id - b.id)
    .map(({ id, key }) => ({ id: String(id), key }));
}

/** Several jobs in one statement: the VALUES form up to MAX_VALUES_ROWS, the JSON form beyond (or where refused). */
async function insertBatch(
  runner: StatementRunner,
  queue: string,
  jobs: NewJobRecord[],
  now: number,
  bindsCheaply: boolean,
): Promise<StorageRow[]> {
  if (bindsCheaply && valuesFormAllowed && jobs.length <= MAX_VALUES_ROWS) {
    const rows = 2 ** Math.ceil(Math.log2(jobs.length));
    try {
      return await runner.all(valuesSql(rows), valuesParams(queue, jobs, now, rows));
    } catch (error) {
      // Refused before it ran (nothing written): this SQLite binds fewer variables. Anything else is the caller's.
      if (!/too many SQL variables/i.test(String((error as Error)?.message ?? error))) throw error;
      valuesFormAllowed = false;
    }
  }
  return runner.all(ENQUEUE_SQL, [queue, now, now, enqueuePayload(jobs)]);
}

/** Live (pending or running) jobs of `queue` holding these keys. */
export async function findLiveByKeys(runner: StatementRunner, queue: string, keys: string[]): Promise<JobRecord[]> {
  return (await runner.all(FIND_BY_KEYS_SQL, [queue, JSON.stringify(keys)])).map(toJobRecord);
}

/** The parameters of `ENQUEUE_ONE_SQL`. */
function enqueueOneParams(queue: string, job: NewJobRecord, now: number): unknown[] {
  return [queue, ...newJobValues(job), job.group ?? null, job.traceContext ?? null, now, now];
}

/** The JSON parameter of `ENQUEUE_SQL`: one array of `newJobValues`, the group and the trace context per job. */
function enqueuePayload(jobs: NewJobRecord[]): string {
  return JSON.stringify(jobs.map((job) => [...newJobValues(job), job.group ?? null, job.traceContext ?? null]));
}
