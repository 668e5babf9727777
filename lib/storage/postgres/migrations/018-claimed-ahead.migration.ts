import { JOBS_TABLE } from '../../../table-names.constants';
import { PostgresMigration } from './postgres-migration';

/**
 * The claim no longer writes `started_at` (see the SQLite step of the same name). Nothing on PostgreSQL read the
 * claim's time from that column: its claim advances the rate windows in its own statement, from its clock parameter.
 * The step says what the column means now, for whoever reads the schema, and keeps both backends at one version.
 */
export const POSTGRES_MIGRATION_CLAIMED_AHEAD: PostgresMigration = {
  version: 18,
  name: 'claimed-ahead',
  statements: (s) => [
    `COMMENT ON COLUMN ${s}.${JOBS_TABLE}.started_at IS
       'When a handler got the job (epoch ms); null before its first run and while a running job is claimed ahead of a free slot'`,
  ],
};
