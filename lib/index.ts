export { SqliteQueueModule } from './sqlite-queue.module';
export { Processor } from './decorators/processor.decorator';
export { QueueProducer } from './producer/queue-producer.service';
export { QueueAdmin } from './admin/queue-admin.service';
export { SQLITE_QUEUE_MODULE_OPTIONS, JOBS_TABLE } from './sqlite-queue.constants';
export * from './interfaces';
export * from './errors';
