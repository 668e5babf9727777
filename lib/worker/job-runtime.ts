import { Job } from '../interfaces/job.interface';
import { JobRecord } from '../storage/queue-storage.interface';

/** Builds the `Job` a handler receives from a claimed row; throws a SyntaxError on an unreadable payload. */
export function toJob<TData>(record: JobRecord, signal: AbortSignal): Job<TData> {
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
    signal,
  };
}
