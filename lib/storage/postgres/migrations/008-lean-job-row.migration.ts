import { JOBS_TABLE } from '../../../table-names.constants';
import { POSTGRES_MIGRATION_FLOW_FAILURE_WALK } from './007-flow-failure-walk.migration';
import { PostgresMigration } from './postgres-migration';

/**
 * Step 7's trigger (same WHEN, same function) fired by the statements that set `finished_at` instead of those that
 * set `status`, as on SQLite (see the SQLite step of the same name): every end of a job sets `finished_at`, the claim
 * does not, so the claim no longer evaluates the trigger's WHEN for each row it takes.
 */
export const POSTGRES_MIGRATION_LEAN_JOB_ROW: PostgresMigration = {
  version: 8,
  name: 'lean-job-row',
  statements: (s) => {
    const T = `${s}.${JOBS_TABLE}`;
    const steps = POSTGRES_MIGRATION_FLOW_FAILURE_WALK.statements(s);
    const create = steps[steps.length - 1];
    const onStatus = `AFTER UPDATE OF status ON ${T}`;
    if (!create.includes(onStatus)) throw new Error(`step 7's trigger no longer reads '${onStatus}'`);
    return [`DROP TRIGGER IF EXISTS ${JOBS_TABLE}_child_finished ON ${T}`, create.replace(onStatus, `AFTER UPDATE OF finished_at ON ${T}`)];
  },
};
