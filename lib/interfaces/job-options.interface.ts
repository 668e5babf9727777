import type { EntityManager } from 'typeorm';
import { BackoffOptions } from './backoff-options.interface';

/** Options of one job, given to `QueueProducer.add()` or with each `addBulk()` item. */
export interface JobOptions {
  /**
   * What the job is, inside its queue (BullMQ's job name): one queue may carry several kinds of job, and the
   * handler tells them apart by `job.name`. 1 to 256 characters. Default: none (`null`).
   */
  name?: string;
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
   * Throttle, with `key`: the key stays taken for this many ms after the add that took it, even once its job finished;
   * an add of the same key inside the window inserts nothing and returns that job. Only `add()` takes it.
   */
  keyTtl?: number;
  /**
   * Debounce, with `key` (usually with `delay`): an add whose key names a job of the queue that has not started
   * replaces that job's data and options and restarts its delay (its id stays), so a burst of adds runs once, with the
   * last data. A job already started is not touched: the add enqueues the next one. Only `add()` takes it.
   */
  debounce?: boolean;
  /**
   * `true`: delete this job as soon as it completes (its result is then gone; `completed` events still carry it).
   * Overrides the queue's retention for this job only. Default: the queue's retention.
   */
  removeOnComplete?: boolean;
  /** `true`: delete this job as soon as it fails for good. Default: the queue's retention. */
  removeOnFail?: boolean;
  /**
   * The job's group, e.g. a tenant (BullMQ Pro's `group.id`): claims serve a queue's groups in turn, so one group's
   * backlog never delays another group's next job by more than a claim round, and the queue's `groupConcurrency`
   * bounds how many jobs of one group run at once across all processes. 1 to 256 characters. Default: none.
   */
  group?: string;
  /**
   * Ids of existing jobs, of any queue, that this job waits for (1 to 1,000, no repeats): it runs once every one of
   * them has ended, and reads the results of those that completed with `job.getDependencyResults()`. Written with the
   * job in one statement; an id no job has throws `JobNotFoundError` and writes nothing. A dependency already ended
   * counts as it ended. Not with `key` (nor in a flow). See docs/dependencies.md. Default: none.
   */
  dependsOn?: string[];
  /**
   * With `dependsOn`, what a dependency that ended failed or cancelled, or was removed before it ended, does to this
   * job: `'fail'` (the default) fails it for good without running, its error a `DependencyFailedError` naming the
   * dependency (and its own dependents with that policy after it); `'continue'` runs it once every dependency has
   * ended, whatever the outcome.
   */
  onDependencyFailure?: 'fail' | 'continue';
  /**
   * Transactional enqueue: the `EntityManager` of your open TypeORM transaction
   * (`dataSource.transaction(async (manager) => ...)`). The job is written by that transaction: invisible until it
   * commits, gone if it rolls back; workers wake, and its `added` event goes out, at commit. PostgreSQL: your DataSource or another one on the
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
