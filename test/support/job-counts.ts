import { JOB_STATUSES, JobCounts } from '../../lib';

/** Counts as `QueueAdmin.getCounts()` returns them: every status present, 0 unless `some` says otherwise. */
export function jobCounts(some: Partial<JobCounts> = {}): JobCounts {
  return { ...(Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<keyof JobCounts, number>), claimed: 0, ...some };
}
