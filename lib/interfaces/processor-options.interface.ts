import { BackoffOptions } from './backoff-options.interface';
import { QueueLimits } from './queue-limits.interface';
import { RetentionOption } from './retention-options.interface';
import { DeclaredSchedule } from './schedule-options.interface';

/**
 * Options of `@Processor(queue, options)`. `limiter` and `globalConcurrency` (see QueueLimits) override the module's
 * `queueLimits` for this queue.
 */
export interface ProcessorOptions extends QueueLimits {
  /** How many jobs of this queue run at once in this process. Default 1. */
  concurrency?: number;
  /** Default `maxAttempts` of jobs of this queue enqueued by this application. */
  maxAttempts?: number;
  /** Default backoff of this queue's retries. */
  backoff?: BackoffOptions;
  /** Default timeout of this queue's attempts, in ms. */
  timeout?: number;
  /** Retention of completed jobs of this queue (overrides the module's). */
  removeOnComplete?: RetentionOption;
  /** Retention of failed jobs of this queue (overrides the module's). */
  removeOnFail?: RetentionOption;
  /** Recurring jobs of this queue, created or updated at boot. */
  schedules?: DeclaredSchedule[];
}
