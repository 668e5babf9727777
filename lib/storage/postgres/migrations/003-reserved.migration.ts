import { PostgresMigration } from './postgres-migration';

/**
 * BRANCH PLACEHOLDER, NOT FOR RELEASE: version 3 belongs to another branch merged beside this one; versions must be
 * contiguous, so this empty step stands in for it here. Delete this file (and its line in the index) at merge.
 */
export const POSTGRES_MIGRATION_3_PLACEHOLDER: PostgresMigration = {
  version: 3,
  name: 'reserved',
  statements: (s) => [`DROP TABLE IF EXISTS ${s}.nest_queue_reserved_placeholder`],
};
