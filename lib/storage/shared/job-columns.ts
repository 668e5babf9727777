/**
 * Column lists both backends select: their tables name and order the columns alike, so the row mappers of
 * `job-row.mapper.ts` read the rows of either.
 */

/** Columns every job-returning statement selects, in the order `toJobRecord` reads them. */
export const JOB_COLUMNS =
  'id, queue, status, data, priority, run_at, attempts, max_attempts, backoff, timeout_ms, unique_key, ' +
  'locked_by, lease_until, result, error, progress, created_at, started_at, finished_at, updated_at, name, remove_on, job_group, ' +
  'trace_context, debounce_key, origin, snoozes';

/** `JOB_COLUMNS` of the table aliased `alias`, for statements that join it to something with columns of the same names. */
export function jobColumnsOf(alias: string): string {
  return JOB_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ');
}

/** Columns of a schedule row, in the order `toScheduleRecord` reads them (and the upsert binds them). */
export const SCHEDULE_COLUMNS = 'queue, name, cron, every_ms, timezone, data, options, next_run_at';
