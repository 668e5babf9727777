import { removalBits } from '../utils/job-name.util';
import { JobOptions } from '../interfaces/job-options.interface';
import { NewJobRecord, ScheduleRecord } from '../storage/queue-storage.interface';

/**
 * The job one occurrence of a schedule enqueues, due at `now`: the schedule's data and job options (its group too), its name as the
 * job name unless the options give one. The scheduler's occurrences and an operator's "run now" are the same job.
 */
export function occurrenceJob(schedule: ScheduleRecord, now: number, defaultMaxAttempts: (queue: string) => number): NewJobRecord {
  const options = schedule.options ? (JSON.parse(schedule.options) as JobOptions) : {};
  return {
    data: schedule.data,
    priority: options.priority ?? 0,
    runAt: now,
    maxAttempts: options.maxAttempts ?? defaultMaxAttempts(schedule.queue),
    backoff: options.backoff ? JSON.stringify(options.backoff) : null,
    timeout: options.timeout ?? null,
    key: null,
    name: options.name ?? schedule.name,
    removeOn: removalBits(options.removeOnComplete, options.removeOnFail),
    group: options.group ?? null,
  };
}
