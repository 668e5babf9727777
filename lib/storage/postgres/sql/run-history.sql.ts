import { MAX_RUN_RECORDS } from '../../shared/run-history';

/**
 * See the SQLite file of the same name. `endedAt` is a bigint expression (a parameter is cast), `outcome` a text one.
 * The column is text, like `logs`: jsonb only while the record is appended.
 */
export function appendRunSql(endedAt: string, outcome: string): string {
  return `runs = ((CASE WHEN jsonb_array_length(COALESCE(runs::jsonb, '[]'::jsonb)) >= ${MAX_RUN_RECORDS} THEN runs::jsonb - 0
                 ELSE COALESCE(runs::jsonb, '[]'::jsonb) END)
               || jsonb_build_array(jsonb_build_object('attempt', attempts, 'startedAt', started_at, 'endedAt', (${endedAt})::bigint,
                    'owner', locked_by, 'outcome', (${outcome})::text)))::text`;
}
