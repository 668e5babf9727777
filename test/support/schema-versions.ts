import { POSTGRES_MIGRATIONS } from '../../lib/storage/postgres/migrations';
import { SQLITE_MIGRATIONS } from '../../lib/storage/sqlite/migrations';

/**
 * Every schema version this build records on a backend, oldest first: read from the migrations list, so tests do
 * not need editing each time a migration is appended.
 */
export function allSchemaVersions(kind: 'sqlite' | 'postgres'): number[] {
  return (kind === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS).map((migration) => migration.version);
}

/** The newest schema version this build knows on a backend. */
export function latestSchemaVersion(kind: 'sqlite' | 'postgres'): number {
  return allSchemaVersions(kind).length;
}
