import { ScheduleNotFoundError } from '../errors/schedule-not-found.error';
import { JobInfo } from '../interfaces/job-info.interface';
import { occurrenceJob } from '../scheduler/occurrence-job';
import { isScheduleName, nextOccurrenceAfter } from '../scheduler/schedule-definition';
import { scheduleRunKey } from '../scheduler/schedule-run-key';
import { intendedNextRunAt, isPausedRunAt } from '../storage/shared/schedule-pause';
import { assertQueueName } from '../utils/queue-name.util';
import { toJobInfo } from '../views/to-job-info';
import { AdminContext } from './admin-context';

/** `QueueAdmin`'s control of recurring jobs; each method is documented on `QueueAdmin`. */
export class ScheduleControl {
  constructor(private readonly context: AdminContext) {}

  /** See `QueueAdmin.pauseSchedule`. */
  async pause(queue: string, name: string): Promise<void> {
    assertQueueName(queue);
    if (!isScheduleName(String(name)) || !(await (await this.context.storage()).pauseSchedule(queue, String(name), Date.now())))
      throw new ScheduleNotFoundError(queue, String(name));
  }

  /** See `QueueAdmin.resumeSchedule`. */
  async resume(queue: string, name: string): Promise<void> {
    const { storage, schedule } = await this.context.schedule(queue, name);
    if (!isPausedRunAt(schedule.nextRunAt)) return;
    const now = Date.now();
    const next = nextOccurrenceAfter({ ...schedule, nextRunAt: intendedNextRunAt(schedule.nextRunAt) }, now);
    await storage.resumeSchedule(queue, schedule.name, next, now);
  }

  /** See `QueueAdmin.runScheduleNow`. */
  async runNow(queue: string, name: string): Promise<string> {
    const { runtime } = this.context;
    const defaults = (of: string) => runtime.getProcessor(of)?.settings.maxAttempts ?? runtime.options.maxAttempts;
    for (;;) {
      const { storage, schedule } = await this.context.schedule(queue, name);
      const now = Date.now();
      const job = occurrenceJob(schedule, now, defaults);
      const id = await storage.enqueueScheduleRun(queue, schedule.name, scheduleRunKey(schedule.name, now), job, now);
      if (id !== null) {
        this.context.wake();
        return id;
      }
      // No row: the schedule was removed (the next read says so), or another run drew the same key (retried).
    }
  }

  /** See `QueueAdmin.getLastScheduleRun`. */
  async lastRun<TData, TResult>(queue: string, name: string): Promise<JobInfo<TData, TResult> | null> {
    assertQueueName(queue);
    if (!isScheduleName(String(name))) return null;
    const record = await (await this.context.storage()).lastScheduleRun(queue, String(name));
    return record ? toJobInfo<TData, TResult>(record) : null;
  }
}
