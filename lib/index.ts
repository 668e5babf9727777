export { SqliteQueueModule } from './sqlite-queue.module';
/** Backend-neutral name of `SqliteQueueModule` (the same class), for apps on PostgreSQL. */
export { SqliteQueueModule as QueueModule } from './sqlite-queue.module';
export type {
  SqliteQueueModuleOptions as QueueModuleOptions,
  SqliteQueueModuleAsyncOptions as QueueModuleAsyncOptions,
} from './interfaces/sqlite-queue-module-options.interface';
export { getPostgresSchemaSql, DEFAULT_POSTGRES_SCHEMA } from './storage/postgres/postgres-schema';
export { getMigrations } from './storage/get-migrations';
export type { QueueSchemaMigration } from './storage/get-migrations';
export { createQueueMigration } from './storage/typeorm-queue-migration';
export type { QueueMigrationOptions } from './storage/typeorm-queue-migration';
export { Processor } from './decorators/processor.decorator';
export { OnJobEvent } from './decorators/on-job-event.decorator';
export { InjectQueue } from './decorators/inject-queue.decorator';
export { getQueueToken } from './utils/get-queue-token.util';
export { Queue } from './queue/queue';
export type { QueueBulkJob, QueueJobOptions, SchemaQueue } from './queue/queue';
export type { OnJobEventOptions, JobEventHandlerDecorator, JobEventHandlerParameter } from './decorators/on-job-event.decorator';
export { QueueEventsListener } from './decorators/queue-events-listener.decorator';
export { OnQueueEvent } from './decorators/on-queue-event.decorator';
export { QueueEvents } from './queue-events/queue-events.service';
export { QueueProducer } from './producer/queue-producer.service';
export { QueueAdmin } from './admin/queue-admin.service';
export type { RedriveOptions, DeadLetterQueueInfo } from './admin/redrive';
export { SQLITE_QUEUE_MODULE_OPTIONS } from './sqlite-queue.constants';
export { JOBS_TABLE, QUEUES_TABLE, SCHEDULES_TABLE } from './table-names.constants';
export { MAX_RETRY_DELAY } from './module-defaults.constants';
export * from './interfaces';
export * from './errors';
