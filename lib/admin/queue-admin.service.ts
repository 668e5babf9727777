import { Injectable } from '@nestjs/common';
import { JOB_STATUSES, JobCounts, JobInfo } from '../interfaces/job-info.interface';
import { SqliteQueueFactory } from '../factory/sqlite-queue.factory';
import { assertQueueName } from '../utils/queue-name.util';
import { toJobInfo } from './to-job-info';

/** Inspects jobs and queues. Inject it anywhere. */
@Injectable()
export class QueueAdmin {
  constructor(private readonly factory: SqliteQueueFactory) {}

  /** One job with its whole state, or `null` when no job has that id. */
  async getJob<TData = unknown, TResult = unknown>(id: string): Promise<JobInfo<TData, TResult> | null> {
    if (typeof id !== 'string') return null;
    const record = await (await this.factory.storage()).getJob(id);
    return record ? toJobInfo<TData, TResult>(record) : null;
  }

  /**
   * Number of jobs per status, of one queue or of all queues together. Every status is present (0 when none).
   * @throws InvalidQueueNameError for a malformed queue name.
   */
  async getCounts(queue?: string): Promise<JobCounts> {
    if (queue !== undefined) assertQueueName(queue);
    const rows = await (await this.factory.storage()).getCounts(queue);
    const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as JobCounts;
    for (const row of rows) counts[row.status] += row.count;
    return counts;
  }
}
