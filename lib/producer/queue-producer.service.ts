import { Injectable } from '@nestjs/common';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import { Job } from '../interfaces/job.interface';
import { SqliteQueueFactory } from '../factory/sqlite-queue.factory';
import { assertQueueName } from '../utils/queue-name.util';
import { toJob } from '../worker/job-runtime';
import { JobDefaults, prepareJob } from './prepare-job';

// Jobs handed back to producers have not started; their signal never aborts.
const NEVER_ABORTED = new AbortController().signal;

/** Enqueues jobs. Inject it anywhere; it works in processes that do not process (`processing: false`). */
@Injectable()
export class QueueProducer {
  constructor(private readonly factory: SqliteQueueFactory) {}

  /**
   * Enqueues one job. Resolves once it is committed. With `options.key` taken by a live job of the queue,
   * resolves with that job and inserts nothing.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError (nothing is written).
   */
  async add<TData>(queue: string, data: TData, options?: JobOptions): Promise<Job<TData>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = prepareJob(queue, data, options, this.defaultsFor(queue), now);
    const storage = await this.factory.storage();
    const [stored] = await storage.enqueue(queue, [record], now);
    return toJob<TData>(stored, NEVER_ABORTED);
  }

  /**
   * Enqueues many jobs of one queue in one atomic statement: all are written or none. Resolves with one job
   * per item, in order. Every item is validated before anything is written.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError (nothing is written).
   */
  async addBulk<TData>(queue: string, items: BulkJobItem<TData>[]): Promise<Job<TData>[]> {
    assertQueueName(queue);
    if (!Array.isArray(items)) throw new InvalidJobOptionsError(queue, 'items', 'must be an array of { data, options? }');
    if (items.length === 0) return [];
    const now = Date.now();
    const defaults = this.defaultsFor(queue);
    const records = items.map((item, index) => {
      if (typeof item !== 'object' || item === null || !('data' in item)) {
        throw new InvalidJobOptionsError(queue, `items[${index}]`, 'must be an object { data, options? } with a data property');
      }
      return prepareJob(queue, item.data, item.options, defaults, now, `items[${index}].`);
    });
    const storage = await this.factory.storage();
    const stored = await storage.enqueue(queue, records, now);
    return stored.map((record) => toJob<TData>(record, NEVER_ABORTED));
  }

  private defaultsFor(queue: string): JobDefaults {
    return { maxAttempts: this.factory.getProcessor(queue)?.settings.maxAttempts ?? this.factory.options.maxAttempts };
  }
}
