import { JobRecord } from '../../lib/storage/queue-storage.interface';

/**
 * A job's record as the worker gets it from a claim: running under worker `w`, attempt 1 of 3, claimed at `now`
 * with a 30 s lease, and started then. For unit tests of the worker's parts; `overrides` sets any field.
 */
export function runningRecord(overrides: Partial<JobRecord> = {}, now = Date.now()): JobRecord {
  return {
    id: '1',
    queue: 'q',
    status: 'running',
    data: '{}',
    priority: 0,
    runAt: now,
    attempts: 1,
    maxAttempts: 3,
    backoff: null,
    timeout: null,
    key: null,
    lockedBy: 'w',
    leaseUntil: now + 30_000,
    result: null,
    error: null,
    progress: null,
    createdAt: now,
    startedAt: now,
    finishedAt: null,
    updatedAt: now,
    ...overrides,
  };
}
