/**
 * Runs the behavioural suite with `driver: 'better-sqlite3'` without changing a test. Loaded by the jest
 * `better-sqlite3` project (setupFiles) and, through `-r`, by the child processes its tests start
 * (test/support/child-app.ts). Apps that name a SQLite file and no driver, DataSource or PostgreSQL get the
 * better-sqlite3 driver; everything else passes through unchanged, so validation errors stay what tests expect.
 */
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import { mapModuleOptions } from './map-module-options';
import { SQLITE_DRIVER_ENV } from './test-backend';

process.env[SQLITE_DRIVER_ENV] = 'better-sqlite3';

function withDriver(options: SqliteQueueModuleOptions | undefined): SqliteQueueModuleOptions | undefined {
  if (typeof options !== 'object' || options === null) return options;
  if (options.driver !== undefined || options.dataSource !== undefined || options.postgres !== undefined) return options;
  if (typeof options.database !== 'string') return options;
  return { ...options, driver: 'better-sqlite3' };
}

mapModuleOptions(withDriver);
