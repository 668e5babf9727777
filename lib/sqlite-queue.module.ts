import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { QueueAdmin } from './admin/queue-admin.service';
import { QueueEvents } from './queue-events/queue-events.service';
import { QueueHealthIndicator } from './health/queue-health.indicator';
import { QueueRuntime } from './runtime/queue-runtime';
import {
  SqliteQueueModuleAsyncOptions,
  SqliteQueueModuleOptions,
  SqliteQueueOptionsFactory,
} from './interfaces/sqlite-queue-module-options.interface';
import { QueueProducer } from './producer/queue-producer.service';
import { SQLITE_QUEUE_MODULE_OPTIONS } from './sqlite-queue.constants';
import { InvalidModuleOptionsError } from './errors/invalid-module-options.error';
import { RegisterQueueAsyncOptions, RegisterQueueOptions } from './interfaces/register-queue-options.interface';
import { createAsyncQueueProviders, createQueueProviders } from './queue/queue.providers';
import { ProcessorExplorer } from './discovery/processor.explorer';
import { EventListenerExplorer } from './discovery/event-listener.explorer';
import { ProcessorMetadataAccessor } from './discovery/processor-metadata.accessor';

const CORE_PROVIDERS: Provider[] = [
  QueueRuntime,
  ProcessorMetadataAccessor,
  ProcessorExplorer,
  EventListenerExplorer,
  QueueProducer,
  QueueAdmin,
  QueueEvents,
  QueueHealthIndicator,
];
/** `QueueRuntime` is not public API (not in the entry point): exported for `registerQueue`'s handles, which declare their queue to it. */
const EXPORTS = [QueueProducer, QueueAdmin, QueueEvents, QueueHealthIndicator, QueueRuntime];

/**
 * The queue module. Import it once, in the root module; it is global, so `QueueProducer`, `QueueAdmin`,
 * `QueueEvents` and `QueueHealthIndicator` can be injected anywhere and `@Processor` classes are found in every module.
 */
@Module({})
export class SqliteQueueModule {
  /** Configures the module with static options (all optional). */
  static forRoot(options: SqliteQueueModuleOptions = {}): DynamicModule {
    return {
      module: SqliteQueueModule,
      global: true,
      imports: [DiscoveryModule],
      providers: [{ provide: SQLITE_QUEUE_MODULE_OPTIONS, useValue: options }, ...CORE_PROVIDERS],
      exports: EXPORTS,
    };
  }

  /** Configures the module with options built by a factory, a class or an existing provider. */
  static forRootAsync(options: SqliteQueueModuleAsyncOptions): DynamicModule {
    return {
      module: SqliteQueueModule,
      global: true,
      imports: [DiscoveryModule, ...(options.imports ?? [])],
      providers: [...SqliteQueueModule.createAsyncProviders(options), ...CORE_PROVIDERS],
      exports: EXPORTS,
    };
  }

  /**
   * Registers queue handles for this module: `@InjectQueue(name)` then injects a `Queue` that adds (with the
   * registration's `defaultJobOptions`), inspects and controls that queue. Import it in each feature module that
   * injects the handle; `forRoot` / `forRootAsync` must be imported once in the app.
   */
  static registerQueue(...registrations: RegisterQueueOptions[]): DynamicModule {
    const providers = createQueueProviders(registrations);
    return { module: SqliteQueueModule, providers, exports: providers };
  }

  /** `registerQueue` with each queue's settings built by a factory (`imports`, `inject`, `useFactory`). */
  static registerQueueAsync(...registrations: RegisterQueueAsyncOptions[]): DynamicModule {
    const providers = createAsyncQueueProviders(registrations);
    return {
      module: SqliteQueueModule,
      imports: registrations.flatMap((registration) => registration.imports ?? []),
      providers,
      exports: providers,
    };
  }

  private static createAsyncProviders(options: SqliteQueueModuleAsyncOptions): Provider[] {
    if (options.useFactory) {
      return [{ provide: SQLITE_QUEUE_MODULE_OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }];
    }
    const optionsClass = options.useClass ?? options.useExisting;
    if (!optionsClass) {
      throw new InvalidModuleOptionsError('forRootAsync', 'needs one of useFactory, useClass or useExisting');
    }
    const fromFactory: Provider = {
      provide: SQLITE_QUEUE_MODULE_OPTIONS,
      useFactory: (factory: SqliteQueueOptionsFactory) => factory.createSqliteQueueOptions(),
      inject: [optionsClass],
    };
    return options.useClass ? [fromFactory, { provide: options.useClass, useClass: options.useClass }] : [fromFactory];
  }
}
