import type { ScheduleOptions } from '../../lib';
import { SAMPLE_CONFIG } from '../sample.config';

/** Name of the queue that runs the recurring reports. */
export const REPORTS_QUEUE = 'reports';

/** Name of the recurring job (unique within its queue), as `listSchedules()` shows it. */
export const BACKLOG_SNAPSHOT_SCHEDULE = 'backlog-snapshot';

/** What each occurrence stores as its result: how much work was left across all queues at that moment. */
export interface BacklogSnapshotResult {
  waiting: number;
  running: number;
}

/**
 * How the schedule runs, declared on the processor; the summary stops it (`removeSchedule`) while it reads its
 * figures and, when the dashboard stays open, puts it back with these same options (`upsertSchedule`).
 */
export const BACKLOG_SNAPSHOT_OPTIONS: ScheduleOptions = {
  every: SAMPLE_CONFIG.reportEveryMs,
  // A missed snapshot is not worth retrying: the next occurrence follows shortly.
  jobOptions: { maxAttempts: 1 },
};
