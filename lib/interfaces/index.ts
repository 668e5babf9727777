export * from './backoff-options.interface';
export * from './job-options.interface';
export * from './job.interface';
export * from './job-info.interface';
export * from './processor-options.interface';
export * from './queue-processor.interface';
export * from './sqlite-queue-module-options.interface';
