import { MAX_RUN_RECORDS } from '../../shared/run-history';
import { cappedAppendSql } from './postgres-sql-fragments';

/**
 * See the SQLite file of the same name. `endedAt` is a bigint expression (a parameter is cast), `outcome` a text one,
 * `batch` an integer one.
 * The column is text, like `logs`: jsonb only while the record is appended.
 */
export function appendRunSql(endedAt: string, outcome: string, startedAt = 'started_at', batch = 'run_batch'): string {
  const run = `jsonb_build_object('attempt', attempts, 'startedAt', ${startedAt}, 'endedAt', (${endedAt})::bigint,
                    'owner', locked_by, 'outcome', (${outcome})::text, 'batch', ${batch})`;
  return `runs = ${cappedAppendSql('runs', String(MAX_RUN_RECORDS), run)}, run_batch = NULL`;
}
