import { JobInfo } from '../interfaces/job-info.interface';
import { JobRecord } from '../storage/queue-storage.interface';
import { parseJobError } from '../utils/error.util';

/** A stored row as operators see it. Unparseable JSON is shown as the raw text rather than hidden. */
export function toJobInfo<TData, TResult>(record: JobRecord): JobInfo<TData, TResult> {
  const date = (ms: number | null) => (ms === null ? null : new Date(ms));
  return {
    id: record.id,
    queue: record.queue,
    name: record.name ?? null,
    status: record.status,
    data: parseOrRaw(record.data) as TData,
    priority: record.priority,
    attempts: record.attempts,
    maxAttempts: record.maxAttempts,
    result: (record.result === null ? null : parseOrRaw(record.result)) as TResult | null,
    error: parseJobError(record.error),
    progress: (record.progress === null ? null : parseOrRaw(record.progress)) as JobInfo['progress'],
    key: record.key,
    lockedBy: record.lockedBy,
    leaseUntil: date(record.leaseUntil),
    createdAt: new Date(record.createdAt),
    runAt: new Date(record.runAt),
    startedAt: date(record.startedAt),
    finishedAt: date(record.finishedAt),
    updatedAt: new Date(record.updatedAt),
  };
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
