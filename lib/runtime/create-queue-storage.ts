import { MODULE_DEFAULTS } from '../module-defaults.constants';
import { QueueStorage } from '../storage/queue-storage.interface';
import { createPostgresStorage } from '../storage/postgres/postgres-queue.storage';
import { createSqliteStorage } from '../storage/sqlite/sqlite-queue.storage';
import { ResolvedModuleOptions } from './resolve-module-options';

/**
 * Picks the backend from the resolved options: PostgreSQL for a DataSource of type `postgres` or for the
 * `postgres` option, SQLite otherwise. Nothing above the storage interface knows which one runs.
 */
export function createQueueStorage(
  options: Pick<ResolvedModuleOptions, 'dataSource' | 'database' | 'driver' | 'postgres'> & {
    migrate?: boolean;
    migrationLockTimeout?: number;
    busyTimeout?: number;
    /** SQLite only, a file the module opens itself: open it read-only and never migrate (see SqliteConnection). */
    readOnly?: boolean;
  },
): QueueStorage {
  const { dataSource, database, driver, postgres, busyTimeout, readOnly = false } = options;
  const migrate = (options.migrate ?? true) && !readOnly;
  const migrationLockTimeout = options.migrationLockTimeout ?? MODULE_DEFAULTS.migrationLockTimeout;
  // `createSchema: false` was the PostgreSQL-only form of `migrate: false`; either one turns migrations off.
  const schema = {
    schema: postgres?.schema,
    createSchema: migrate && (postgres?.createSchema ?? true),
    preparedStatements: postgres?.preparedStatements,
    migrationLockTimeout,
  };
  if (dataSource?.options.type === 'postgres') return createPostgresStorage({ dataSource, ...schema });
  if (postgres && !dataSource) return createPostgresStorage({ connection: postgres, ...schema });
  return createSqliteStorage(dataSource ? { dataSource, busyTimeout } : { database, driver, busyTimeout, readOnly }, {
    migrate,
    migrationLockTimeout,
  });
}
