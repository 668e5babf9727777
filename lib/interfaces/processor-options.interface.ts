import { BackoffOptions } from './backoff-options.interface';
import { BatchOptions } from './batch-options.interface';
import { QueueDataSchema } from './payload-schema.interface';
import { QueueLimits } from './queue-limits.interface';
import { RetentionOption } from './retention-options.interface';
import { DeclaredSchedule } from './schedule-options.interface';

/**
 * Options of `@Processor(queue, options)`. `limiter`, `globalConcurrency` and `groupConcurrency` (see QueueLimits)
 * override the module's `queueLimits` for this queue.
 */
export interface ProcessorOptions extends QueueLimits {
  /**
   * How many jobs of this queue run at once in this process. Default 1, or `batch.size` for a batch processor (a
   * batch counts as its jobs; at least `batch.size`, so that a batch can fill).
   */
  concurrency?: number;
  /**
   * Makes this a batch processor: its `process(jobs)` (see `BatchProcessor`) receives up to `size` jobs of this queue
   * at once. Concurrency, `prefetch`, rate limits, global and group concurrency count jobs, as without it.
   */
  batch?: BatchOptions;
  /**
   * How many jobs of this queue this process claims ahead, beyond its free slots, to start the moment a slot
   * frees (graphile-worker's local queue). A prefetched job is leased to this process and counts as running while it
   * waits (its run time counts from its claim); a clean shutdown hands it back at once, a crash after its lease.
   * It pays where handlers are short and the database is far: each slot's next job no longer waits for a claim
   * round trip. A fixed prefetch costs fairness: a prefetched job waits for this process's slots even when another
   * process has free ones, and a job of higher priority added meanwhile starts after it.
   *
   * Default `'auto'`: a slot is claimed for as its handler returns, and the jobs claimed ahead are only those for slots
   * expected to free while a freed slot waits for its claim's answer (`concurrency × that wait / mean handler time`,
   * with a margin for chance, about twice its square root, once it reaches one; at most `2 × concurrency`; 0 for
   * queues with limits or groups; the wait runs from the slot freeing to the claim that answers it, a claim still in
   * flight included, and is planned for its long tail: the moving mean plus four mean deviations). Such a job waits a
   * few claim round trips at most, about the time any other process would need to take it; with handlers long beside a
   * claim nothing is claimed ahead. `0`: a job is claimed
   * only for a free slot, and a slot's next job starts only once the previous outcome is saved.
   */
  prefetch?: number | 'auto';
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
  /**
   * Dead-letter queue: a job of this queue that fails for good (attempts spent, UnrecoverableError, a timeout or an
   * expired lease on its last attempt) is also enqueued there, with its data and name, its origin and last error on
   * its `JobInfo.deadLetter`. Not this queue itself. `null`: none, even if the module names a default.
   */
  deadLetter?: string | null;
  /**
   * The shape of this queue's job data, as a Standard Schema (zod 3.24+, valibot 1+, arktype...) or a class-validator
   * DTO class (with class-validator and class-transformer installed). Every add of this queue in this application is
   * checked and refused with `InvalidJobDataError` (nothing written), and stores the schema's output (a DTO's plain
   * form); every job this processor claims is checked before its handler runs (which gets a DTO class's instance), and
   * one whose stored data does not match fails for good with `InvalidStoredDataError`. The schema must accept its own
   * output.
   */
  schema?: QueueDataSchema;
}
