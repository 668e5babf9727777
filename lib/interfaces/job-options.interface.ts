import type { EntityManager } from 'typeorm';
import { BackoffOptions } from './backoff-options.interface';

/** Options of one job, given to `QueueProducer.add()` or with each `addBulk()` item. */
export interface JobOptions {
  /** Do not start before this many ms from now (>= 0). Combined with `runAt`, the later wins. */
  delay?: number;
  /** Do not start before this moment. */
  runAt?: Date;
  /** Higher runs first among due jobs of the same queue. An integer, default 0. */
  priority?: number;
  /** Total runs allowed, first included (>= 1). Default: the processor's, else the module's (3). */
  maxAttempts?: number;
  /** Wait between attempts. Default: the processor's, else the module's. */
  backoff?: BackoffOptions;
  /** Fail an attempt that runs longer than this many ms (> 0). Default: the processor's, if any. */
  timeout?: number;
  /**
   * Deduplication key: while a job with this key is pending or running in this queue, adding another
   * with the same key inserts nothing and returns the existing job.
   */
  key?: string;
  /**
   * Transactional enqueue: the `EntityManager` of your open TypeORM transaction
   * (`dataSource.transaction(async (manager) => ...)`). The job is written by that transaction: invisible until it
   * commits, gone if it rolls back, and workers wake at commit. PostgreSQL: your DataSource or another one on the
   * same database. SQLite: the DataSource you gave the module (`dataSource` option), or one on the same file. Any
   * other throws `UnsupportedTransactionError` and writes nothing. With `addBulk`, every item must name the same
   * manager (or none).
   */
  manager?: EntityManager;
}

/** One item of `QueueProducer.addBulk()`. */
export interface BulkJobItem<TData = unknown> {
  /** The payload; must survive a JSON round-trip. */
  data: TData;
  /** Per-job options. */
  options?: JobOptions;
}
