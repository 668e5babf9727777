/**
 * Runs the behavioural suite with `driver: 'better-sqlite3'` without changing a test. Loaded by the jest
 * `better-sqlite3` project (setupFiles) and, through `-r`, by the child processes its tests start
 * (test/support/child-app.ts). Apps that name a SQLite file and no driver, DataSource or PostgreSQL get the
 * better-sqlite3 driver; everything else passes through unchanged, so validation errors stay what tests expect.
 */
import type { DynamicModule, Provider } from '@nestjs/common';
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import { SQLITE_QUEUE_MODULE_OPTIONS } from '../../lib/sqlite-queue.constants';
import { SqliteQueueModule } from '../../lib/sqlite-queue.module';
import { SQLITE_DRIVER_ENV } from './test-backend';

process.env[SQLITE_DRIVER_ENV] = 'better-sqlite3';

function withDriver(options: SqliteQueueModuleOptions | undefined): SqliteQueueModuleOptions | undefined {
  if (typeof options !== 'object' || options === null) return options;
  if (options.driver !== undefined || options.dataSource !== undefined || options.postgres !== undefined) return options;
  if (typeof options.database !== 'string') return options;
  return { ...options, driver: 'better-sqlite3' };
}

function mapOptionsProvider(module: DynamicModule): DynamicModule {
  const providers = module.providers?.map((provider): Provider => {
    if (typeof provider !== 'object' || provider === null || !('provide' in provider)) return provider;
    if (provider.provide !== SQLITE_QUEUE_MODULE_OPTIONS || !('useFactory' in provider)) return provider;
    const build = provider.useFactory;
    return { ...provider, useFactory: async (...args: unknown[]) => withDriver(await build(...args)) };
  });
  return { ...module, providers };
}

const forRoot = SqliteQueueModule.forRoot.bind(SqliteQueueModule);
const forRootAsync = SqliteQueueModule.forRootAsync.bind(SqliteQueueModule);
SqliteQueueModule.forRoot = (options?: SqliteQueueModuleOptions) => forRoot(withDriver(options));
SqliteQueueModule.forRootAsync = (options) => mapOptionsProvider(forRootAsync(options));
