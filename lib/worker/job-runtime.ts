import { JobProgress } from '../interfaces/job-info.interface';
import { Job } from '../interfaces/job.interface';
import { JobRecord } from '../storage/queue-storage.interface';

/** What a running job can do besides reading itself. */
export interface JobControls {
  signal: AbortSignal;
  updateProgress(progress: JobProgress): Promise<void>;
}

/** Builds the `Job` a handler (or a producer) receives from a row; throws a SyntaxError on an unreadable payload. */
export function toJob<TData>(record: JobRecord, controls: JobControls): Job<TData> {
  return {
    id: record.id,
    queue: record.queue,
    data: JSON.parse(record.data) as TData,
    attempt: record.attempts,
    maxAttempts: record.maxAttempts,
    priority: record.priority,
    createdAt: new Date(record.createdAt),
    runAt: new Date(record.runAt),
    key: record.key,
    // A getter, so the controller behind it is only created for handlers that use it.
    get signal() {
      return controls.signal;
    },
    updateProgress: controls.updateProgress,
  };
}
