import { DeadLetterOrigin, JobInfo } from '../interfaces/job-info.interface';
import { JobFlowInfo } from '../interfaces/flow-job.interface';
import { FlowRecord, JobRecord } from '../storage/queue-storage.interface';
import { intendedRunAt, isWaitingRunAt } from '../storage/shared/flow-wait';
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
    group: record.group ?? null,
    // A completed row keeps the owner of its last run (its run history's), but nothing holds the job any more.
    lockedBy: record.status === 'completed' ? null : record.lockedBy,
    leaseUntil: date(record.leaseUntil),
    createdAt: new Date(record.createdAt),
    runAt: new Date(intendedRunAt(record.runAt)),
    startedAt: date(record.startedAt),
    finishedAt: date(record.finishedAt),
    updatedAt: new Date(record.updatedAt),
    snoozes: record.snoozes ?? 0,
    deadLetter: deadLetterOrigin(record.origin ?? null),
  };
}

/** A dead letter's stored origin (`{ queue, jobId, error }`, error as stored text); null when absent or unreadable. */
function deadLetterOrigin(origin: string | null): DeadLetterOrigin | null {
  if (origin === null) return null;
  try {
    const parsed = JSON.parse(origin) as { queue?: unknown; jobId?: unknown; error?: unknown };
    // Stored as text; SQLite's json_object nests it as an object when the failing statement wrote it as JSON itself.
    const error =
      typeof parsed.error === 'string'
        ? parseJobError(parsed.error)
        : typeof parsed.error === 'object' && parsed.error !== null
          ? parseJobError(JSON.stringify(parsed.error))
          : null;
    return { queue: String(parsed.queue), jobId: String(parsed.jobId), error };
  } catch {
    return null;
  }
}

/** A job's place in a flow, as operators see it. */
export function toJobFlowInfo(record: JobRecord, flow: FlowRecord): JobFlowInfo {
  return {
    parentId: flow.parentId,
    childrenIds: flow.children.map((child) => child.id),
    pendingChildren: flow.children.filter((child) => child.status === 'pending' || child.status === 'running').length,
    onChildFailure: flow.onChildFailure,
    waitingForChildren: record.status === 'pending' && isWaitingRunAt(record.runAt),
  };
}

function parseOrRaw(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
