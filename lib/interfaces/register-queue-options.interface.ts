import type { InjectionToken, ModuleMetadata, OptionalFactoryDependency } from '@nestjs/common';
import { JobOptions } from './job-options.interface';
import { QueueDataSchema } from './payload-schema.interface';

/** Job options a registered queue applies to every job it adds (each job's own options win). */
export type QueueDefaultJobOptions = Omit<JobOptions, 'name' | 'key' | 'runAt'>;

/** Options of `SqliteQueueModule.registerQueue()`. */
export interface RegisterQueueOptions {
  /** The queue: 1 to 128 letters, digits, `_ . : -`. `@InjectQueue(name)` injects its handle. */
  name: string;
  /** Defaults of every job added through this handle (`delay`, `priority`, `maxAttempts`, `backoff`, `timeout`, removal). */
  defaultJobOptions?: QueueDefaultJobOptions;
  /**
   * The shape of the queue's job data, as a Standard Schema (zod 3.24+, valibot 1+, arktype...): every add of this
   * queue in this application (through the handle, `QueueProducer` or a flow) is checked and stores the schema's
   * output; a processor of the queue in this application checks the jobs it runs too. See `ProcessorOptions.schema`.
   */
  schema?: QueueDataSchema;
}

/** Options of `SqliteQueueModule.registerQueueAsync()`: the name is static, the rest comes from a factory. */
export interface RegisterQueueAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** The queue. */
  name: string;
  /** Builds the queue's settings from the injected providers. */
  // Nest calls it with the resolved `inject` tokens, whose types it cannot know.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...args: any[]) => Promise<Omit<RegisterQueueOptions, 'name'>> | Omit<RegisterQueueOptions, 'name'>;
  /** Providers passed to `useFactory`. */
  inject?: (InjectionToken | OptionalFactoryDependency)[];
}
