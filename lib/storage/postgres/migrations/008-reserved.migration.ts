import { PostgresMigration } from './postgres-migration';

/**
 * A stand-in for step 8, which another change of this round may claim (see the SQLite step of the same name): the
 * versions must run 1..n without a gap. It changes nothing; the step 8 of that change replaces this file when merged.
 */
export const POSTGRES_MIGRATION_RESERVED_8: PostgresMigration = {
  version: 8,
  name: 'reserved',
  // PL/pgSQL's empty statement: the step's DDL runs inside a DO block (see `stepSql`), which needs one.
  statements: () => ['NULL'],
};
