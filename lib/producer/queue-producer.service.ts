import { Injectable } from '@nestjs/common';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { JobRecord, QueueStorage } from '../storage/queue-storage.interface';
import { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import { Job } from '../interfaces/job.interface';
import { ScheduleInfo, ScheduleOptions } from '../interfaces/schedule-options.interface';
import { toScheduleRecord } from '../scheduler/schedule-definition';
import { Scheduler } from '../scheduler/scheduler';
import { QueueFactory } from '../factory/queue.factory';
import { asStorageError } from '../errors/storage.error';
import { assertQueueName } from '../utils/queue-name.util';
import { guardStorage } from '../utils/storage-boundary.util';
import { toJob } from '../worker/job-runtime';
import { AddGroupCommit } from './add-group-commit';
import { JobDefaults, prepareJob } from './prepare-job';

const NEVER_ABORTED = { signal: new AbortController().signal };

/** Jobs handed back to producers have not started: their signal never aborts and they cannot report progress. */
function notRunning<TData>(record: JobRecord): Job<TData> {
  return toJob<TData>(record, NEVER_ABORTED, () => Promise.reject(new JobNotRunningError(record.id, record.queue)));
}

/** Enqueues jobs. Inject it anywhere; it works in processes that do not process (`processing: false`). */
@Injectable()
export class QueueProducer {
  private groupCommit?: { storage: QueueStorage; commit: AddGroupCommit };

  constructor(private readonly factory: QueueFactory) {}

  /**
   * Enqueues one job. Resolves once it is committed. With `options.key` taken by a live job of the queue,
   * resolves with that job and inserts nothing. Adds made while another add's insert is in flight are written
   * together in one statement when it returns (group commit); each still gets its own job or error.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError (nothing is written).
   */
  async add<TData>(queue: string, data: TData, options?: JobOptions): Promise<Job<TData>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = prepareJob(queue, data, options, this.defaultsFor(queue), now);
    const storage = await this.factory.storage();
    let stored: JobRecord;
    try {
      stored = await this.groupCommitFor(storage).add(queue, record, now);
    } catch (error) {
      throw asStorageError(error, 'QueueProducer.add', `queue "${queue}"`);
    }
    if (record.runAt > now) this.factory.runtime?.wakeAt(record.runAt);
    return notRunning<TData>(stored);
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
      // `{ data, delay: 100 }` would otherwise drop the option silently: job options go in `options`.
      const stray = Object.keys(item).find((field) => field !== 'data' && field !== 'options');
      if (stray !== undefined) {
        throw new InvalidJobOptionsError(
          queue,
          `items[${index}].${stray}`,
          'is not a field of a bulk item (an item is { data, options? }; job options go in options)',
        );
      }
      return prepareJob(queue, item.data, item.options, defaults, now, `items[${index}].`);
    });
    const storage = await this.factory.storage();
    let stored: JobRecord[];
    try {
      stored = await storage.enqueue(queue, records, now);
    } catch (error) {
      throw asStorageError(error, 'QueueProducer.addBulk', `queue "${queue}"`);
    }
    const firstDelayed = records.reduce((first, record) => (record.runAt > now && record.runAt < first ? record.runAt : first), Infinity);
    if (firstDelayed !== Infinity) this.factory.runtime?.wakeAt(firstDelayed);
    return stored.map((record) => notRunning<TData>(record));
  }

  /**
   * Creates or replaces a recurring job of `queue`: exactly one of `cron` or `every`. Re-upserting an
   * unchanged schedule keeps its next run time, so calling this at every boot is safe.
   * @throws InvalidQueueNameError, InvalidScheduleError (nothing is written).
   */
  async upsertSchedule<TData>(queue: string, name: string, options: ScheduleOptions<TData>): Promise<ScheduleInfo<TData>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = toScheduleRecord(queue, name, options, now);
    await Scheduler.upsert(guardStorage(await this.factory.storage(), 'QueueProducer'), [record], now);
    const stored = (await this.listSchedules<TData>()).find((schedule) => schedule.queue === queue && schedule.name === name);
    return stored as ScheduleInfo<TData>;
  }

  /** Deletes a recurring job; resolves false when there was none. Jobs it already enqueued stay. */
  async removeSchedule(queue: string, name: string): Promise<boolean> {
    assertQueueName(queue);
    return guardStorage(await this.factory.storage(), 'QueueProducer').removeSchedule(queue, name);
  }

  /** Every recurring job, with its next run time. */
  async listSchedules<TData = unknown>(): Promise<ScheduleInfo<TData>[]> {
    const records = await guardStorage(await this.factory.storage(), 'QueueProducer').listSchedules();
    return records.map((record) => ({
      queue: record.queue,
      name: record.name,
      cron: record.cron,
      every: record.every,
      timezone: record.timezone,
      data: JSON.parse(record.data) as TData,
      nextRunAt: new Date(record.nextRunAt),
    }));
  }

  /** The group commit of `storage`'s adds (one storage per application; kept per storage all the same). */
  private groupCommitFor(storage: QueueStorage): AddGroupCommit {
    if (this.groupCommit?.storage !== storage) {
      this.groupCommit = {
        storage,
        commit: new AddGroupCommit((queue, jobs, now) => storage.enqueue(queue, jobs, now), storage.parallelInserts),
      };
    }
    return this.groupCommit.commit;
  }

  private defaultsFor(queue: string): JobDefaults {
    return { maxAttempts: this.factory.getProcessor(queue)?.settings.maxAttempts ?? this.factory.options.maxAttempts };
  }
}
