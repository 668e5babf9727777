/** Name of the queue that runs the recurring reports. */
export const REPORTS_QUEUE = 'reports';

/** Name of the recurring job (unique within its queue), as `listSchedules()` shows it. */
export const BACKLOG_SNAPSHOT_SCHEDULE = 'backlog-snapshot';

/** What each occurrence stores as its result: how much work was left across all queues at that moment. */
export interface BacklogSnapshotResult {
  waiting: number;
  running: number;
}
