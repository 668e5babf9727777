import { JOBS_TABLE } from '../../../table-names.constants';
import { SchemaMigration } from '../../shared/schema-migration';

/**
 * How many jobs the batch handler call that ran a job's current attempt held (`Processor({ batch })`), so its run
 * history says which runs were part of a batch, and how large. NULL for a run of a single-job handler, and in every
 * row written before. The statement that ends a run other than by completing moves it into that run's record in
 * `runs` and clears it; the run that completes keeps it, as it keeps its start and owner. Nullable without a default:
 * added without rewriting the table. Never indexed, never filtered on.
 */
export const SQLITE_MIGRATION_RUN_BATCH: SchemaMigration = {
  version: 19,
  name: 'run-batch',
  statements: [`ALTER TABLE ${JOBS_TABLE} ADD COLUMN run_batch INTEGER`],
};
