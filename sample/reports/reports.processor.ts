import { Job, Processor, QueueAdmin, QueueProcessor } from '../../lib';
import { BACKLOG_SNAPSHOT_OPTIONS, BACKLOG_SNAPSHOT_SCHEDULE, BacklogSnapshotResult, REPORTS_QUEUE } from './backlog-snapshot.job';

/**
 * Runs a recurring job: the schedule is declared on the processor and created (or kept, if unchanged) at
 * boot, and each occurrence is enqueued once even with several processes on the same database. Here every
 * occurrence records the backlog, like a dashboard's periodic snapshot; in production it would be hourly.
 */
@Processor(REPORTS_QUEUE, { schedules: [{ name: BACKLOG_SNAPSHOT_SCHEDULE, ...BACKLOG_SNAPSHOT_OPTIONS }] })
export class ReportsProcessor implements QueueProcessor<unknown, BacklogSnapshotResult> {
  constructor(private readonly admin: QueueAdmin) {}

  async process(_job: Job): Promise<BacklogSnapshotResult> {
    const counts = await this.admin.getCounts();
    // Jobs a process claimed ahead of a free slot (`claimed`) wait too: `running` counts only those a handler has.
    return { waiting: counts.pending + counts.claimed, running: counts.running };
  }
}
