import { JOB_STATUSES, JobCounts } from '../../lib';

/** Counts as `QueueAdmin.getCounts()` returns them: every status present, 0 unless `some` says otherwise. */
export function jobCounts(some: Partial<JobCounts> = {}): JobCounts {
  return { ...(Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<keyof JobCounts, number>), claimed: 0, ...some };
}

/**
 * The jobs some process holds: running (a handler has it) and claimed (taken ahead of a slot, or whose handler's start
 * or outcome is not written yet). A test that waits for outcomes to land waits for this to reach 0, not `running`.
 */
export function held(counts: JobCounts): number {
  return counts.running + counts.claimed;
}
