import type { DynamicModule, Provider } from '@nestjs/common';
import type { SqliteQueueModuleOptions } from '../../lib/interfaces/sqlite-queue-module-options.interface';
import { SQLITE_QUEUE_MODULE_OPTIONS } from '../../lib/sqlite-queue.constants';
import { SqliteQueueModule } from '../../lib/sqlite-queue.module';

type OptionsMapper = (options: SqliteQueueModuleOptions | undefined) => SqliteQueueModuleOptions | undefined;

/**
 * Makes every `forRoot` / `forRootAsync` of this process pass its options through `map`: how the jest projects
 * run the same tests on another driver or backend without changing a test. Used only by setup files.
 */
export function mapModuleOptions(map: OptionsMapper): void {
  const forRoot = SqliteQueueModule.forRoot.bind(SqliteQueueModule);
  const forRootAsync = SqliteQueueModule.forRootAsync.bind(SqliteQueueModule);
  SqliteQueueModule.forRoot = (options?: SqliteQueueModuleOptions) => forRoot(map(options));
  SqliteQueueModule.forRootAsync = (options) => mapOptionsProvider(forRootAsync(options), map);
}

function mapOptionsProvider(module: DynamicModule, map: OptionsMapper): DynamicModule {
  const providers = module.providers?.map((provider): Provider => {
    if (typeof provider !== 'object' || provider === null || !('provide' in provider)) return provider;
    if (provider.provide !== SQLITE_QUEUE_MODULE_OPTIONS || !('useFactory' in provider)) return provider;
    const build = provider.useFactory;
    return { ...provider, useFactory: async (...args: unknown[]) => map(await build(...args)) };
  });
  return { ...module, providers };
}
