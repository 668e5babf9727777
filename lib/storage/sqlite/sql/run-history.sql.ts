import { MAX_RUN_RECORDS } from '../../shared/run-history';
import { cappedAppendSql } from './sqlite-sql-fragments';

/**
 * The assignment that appends the ending attempt's record to `runs` (see shared/run-history.ts), for the SET of a
 * statement that ends an attempt. It reads the row as it was before the statement (attempts, started_at,
 * locked_by), as every SET expression does. `endedAt` and `outcome` are SQL: a `?` parameter or a literal. At the
 * bound the oldest record goes, as `job.log` drops its oldest line.
 */
export function appendRunSql(endedAt: string, outcome: string): string {
  const run = `json_object('attempt', attempts, 'startedAt', started_at, 'endedAt', ${endedAt}, 'owner', locked_by, 'outcome', ${outcome})`;
  return `runs = ${cappedAppendSql('runs', String(MAX_RUN_RECORDS), run)}`;
}
