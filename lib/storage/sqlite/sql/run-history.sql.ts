import { MAX_RUN_RECORDS } from '../../shared/run-history';
import { cappedAppendSql } from './sqlite-sql-fragments';

/**
 * The assignment that appends the ending attempt's record to `runs` (see shared/run-history.ts), for the SET of a
 * statement that ends an attempt. It reads the row as it was before the statement (attempts, started_at,
 * locked_by), as every SET expression does. `endedAt` and `outcome` are SQL: a `?` parameter or a literal. At the
 * bound the oldest record goes, as `job.log` drops its oldest line. `startedAt` is the run's start as SQL: the
 * column, or the start the ending write carries where no earlier write recorded it. The record keeps the size of the
 * batch call the run was part of, null for a single-job handler: `batch` is SQL, the column `run_batch` (written by an
 * earlier write of the run) or the size the ending write carries; the assignment clears the column.
 */
export function appendRunSql(endedAt: string, outcome: string, startedAt = 'started_at', batch = 'run_batch'): string {
  const run =
    `json_object('attempt', attempts, 'startedAt', ${startedAt}, 'endedAt', ${endedAt}, 'owner', locked_by, ` +
    `'outcome', ${outcome}, 'batch', ${batch})`;
  // The run's batch size goes into its record: the next run starts without one.
  return `runs = ${cappedAppendSql('runs', String(MAX_RUN_RECORDS), run)}, run_batch = NULL`;
}
