import { Injectable } from '@nestjs/common';
import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { JobNotRunningError } from '../errors/job-not-running.error';
import { JobRecord } from '../storage/queue-storage.interface';
import { BulkJobItem, JobOptions } from '../interfaces/job-options.interface';
import { EnqueuedJob } from '../interfaces/job.interface';
import { JobInfo } from '../interfaces/job-info.interface';
import { WaitOptions } from '../interfaces/wait-options.interface';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { toJobInfo } from '../admin/to-job-info';
import { MAX_TIMER_MS, describeValue, isTimerDuration } from '../utils/validation.util';
import { ScheduleInfo, ScheduleOptions } from '../interfaces/schedule-options.interface';
import { toScheduleRecord } from '../scheduler/schedule-definition';
import { Scheduler } from '../scheduler/scheduler';
import { QueueFactory } from '../factory/queue.factory';
import { asStorageError } from '../errors/storage.error';
import { assertQueueName } from '../utils/queue-name.util';
import { guardStorage } from '../utils/storage-boundary.util';
import { toJob } from '../worker/job-runtime';
import { JobDefaults, prepareJob } from './prepare-job';

const NEVER_ABORTED = { signal: new AbortController().signal };

/** Enqueues jobs. Inject it anywhere; it works in processes that do not process (`processing: false`). */
@Injectable()
export class QueueProducer {
  constructor(private readonly factory: QueueFactory) {}

  /**
   * A job handed back to a producer: not started (its signal never aborts, it cannot report progress), and it can be
   * waited for. Announces it as `added` when it was inserted now (not a live job found by its key).
   */
  private enqueued<TData, TResult>(record: JobRecord, now: number): EnqueuedJob<TData, TResult> {
    const job = toJob<TData>(record, NEVER_ABORTED, () => Promise.reject(new JobNotRunningError(record.id, record.queue)));
    if (this.factory.events.observed && record.createdAt === now) {
      this.factory.events.emit({ type: 'added', queue: record.queue, jobId: record.id, attempt: 0, runAt: new Date(record.runAt) });
    }
    return Object.assign(job, {
      waitUntilFinished: async (options: WaitOptions = {}): Promise<JobInfo<TData, TResult>> => {
        if (options.timeout !== undefined && !isTimerDuration(options.timeout)) {
          throw new InvalidArgumentError(
            'waitUntilFinished',
            'timeout',
            `must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(options.timeout)}`,
          );
        }
        return toJobInfo<TData, TResult>(await this.factory.finishWatcher.wait(record.id, options.timeout));
      },
    });
  }

  /**
   * Enqueues one job. Resolves once it is committed. With `options.key` taken by a live job of the queue,
   * resolves with that job and inserts nothing.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError (nothing is written).
   */
  async add<TData, TResult = unknown>(queue: string, data: TData, options?: JobOptions): Promise<EnqueuedJob<TData, TResult>> {
    assertQueueName(queue);
    const now = Date.now();
    const record = prepareJob(queue, data, options, this.defaultsFor(queue), now);
    const storage = await this.factory.storage();
    let stored: JobRecord;
    try {
      [stored] = await storage.enqueue(queue, [record], now);
    } catch (error) {
      throw asStorageError(error, 'QueueProducer.add', `queue "${queue}"`);
    }
    if (record.runAt > now) this.factory.runtime?.wakeAt(record.runAt);
    return this.enqueued<TData, TResult>(stored, now);
  }

  /**
   * Enqueues many jobs of one queue in one atomic statement: all are written or none. Resolves with one job
   * per item, in order. Every item is validated before anything is written.
   * @throws InvalidQueueNameError, InvalidJobDataError, InvalidJobOptionsError (nothing is written).
   */
  async addBulk<TData, TResult = unknown>(queue: string, items: BulkJobItem<TData>[]): Promise<EnqueuedJob<TData, TResult>[]> {
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
    return stored.map((record) => this.enqueued<TData, TResult>(record, now));
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

  private defaultsFor(queue: string): JobDefaults {
    return { maxAttempts: this.factory.getProcessor(queue)?.settings.maxAttempts ?? this.factory.options.maxAttempts };
  }
}
