import { SchemaMigration } from '../../shared/schema-migration';

/**
 * A stand-in for step 8, which another change of this round may claim (the steps of one round were numbered before
 * they were written): the versions must run 1..n without a gap, so step 9 (`job-groups`) needs an 8 before it. It
 * changes nothing. When the step 8 of that change is merged, it replaces this file; if none is, this one stays, a
 * recorded no-op.
 */
export const SQLITE_MIGRATION_RESERVED_8: SchemaMigration = {
  version: 8,
  name: 'reserved',
  statements: [],
};
