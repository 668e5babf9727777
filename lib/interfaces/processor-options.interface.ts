import { BackoffOptions } from './backoff-options.interface';

/** Options of `@Processor(queue, options)`. */
export interface ProcessorOptions {
  /** How many jobs of this queue run at once in this process. Default 1. */
  concurrency?: number;
  /** Default `maxAttempts` of jobs of this queue enqueued by this application. */
  maxAttempts?: number;
  /** Default backoff of this queue's retries. */
  backoff?: BackoffOptions;
  /** Default timeout of this queue's attempts, in ms. */
  timeout?: number;
}
