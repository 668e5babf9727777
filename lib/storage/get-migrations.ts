import { getPostgresMigrations } from './postgres/postgres-schema';
import { QueueSchemaMigration } from './shared/schema-migration';
import { getSqliteMigrations } from './sqlite/sqlite-schema';

export type { QueueSchemaMigration } from './shared/schema-migration';

/**
 * Every schema step of a backend, oldest first, as complete SQL per version (the DDL, then the row recording the
 * version), for applications that run migrations themselves. Run the steps above the version recorded in
 * `nest_queue_migrations` in order, each in one transaction. `schema` names the PostgreSQL schema (default
 * `nest_queue`); SQLite has none.
 */
export function getMigrations(backend: 'sqlite' | 'postgres', options: { schema?: string } = {}): QueueSchemaMigration[] {
  if (backend === 'postgres') return getPostgresMigrations(options.schema);
  if (backend === 'sqlite') return getSqliteMigrations();
  throw new Error(`getMigrations: unknown backend ${JSON.stringify(backend)}, expected 'sqlite' or 'postgres'`);
}
