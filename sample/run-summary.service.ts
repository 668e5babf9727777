import { Injectable } from '@nestjs/common';
import { DurationPercentiles, QueueAdmin, QueueProducer, ScheduleInfo } from '../lib';
import { ALBUMS_QUEUE, PublishAlbumResult } from './albums/publish-album.job';
import { BillingProcessor } from './billing/billing.processor';
import { EMAIL_QUEUE } from './email/send-email.job';
import { EventsReporterService } from './events-reporter.service';
import { QueueSnapshot, unfinished } from './progress-reporter.service';
import { BACKLOG_SNAPSHOT_OPTIONS, BACKLOG_SNAPSHOT_SCHEDULE, BacklogSnapshotResult, REPORTS_QUEUE } from './reports/backlog-snapshot.job';

/**
 * Prints the end-of-run report with the read-side APIs a dashboard would use: `QueueAdmin.getJob()`, `getJobs()`,
 * `getCounts()`, `listQueues()` and `getMetrics()`, and `QueueProducer.listSchedules()`. Every figure is exact and
 * of one moment: the queues have drained and the schedule is stopped first (`stopSchedule`).
 */
@Injectable()
export class RunSummaryService {
  constructor(
    private readonly admin: QueueAdmin,
    private readonly producer: QueueProducer,
    private readonly events: EventsReporterService,
    private readonly billing: BillingProcessor,
  ) {}

  /**
   * Stops the recurring job's schedule (`removeSchedule`) and waits for its last run to finish: a schedule that kept
   * firing while the summary is read would make its figures disagree (a run completing between "ran n times" and the
   * table below it). Returns the schedule as it was, for `print` and `restoreSchedule`.
   */
  async stopSchedule(): Promise<ScheduleInfo | undefined> {
    const schedule = (await this.producer.listSchedules()).find((s) => s.queue === REPORTS_QUEUE && s.name === BACKLOG_SNAPSHOT_SCHEDULE);
    await this.producer.removeSchedule(REPORTS_QUEUE, BACKLOG_SNAPSHOT_SCHEDULE);
    await this.admin.waitUntilIdle(REPORTS_QUEUE, { timeout: 10_000 });
    return schedule;
  }

  /** Puts the schedule back as the processor declares it (`upsertSchedule`), for a dashboard kept open. */
  async restoreSchedule(): Promise<void> {
    await this.producer.upsertSchedule(REPORTS_QUEUE, BACKLOG_SNAPSHOT_SCHEDULE, BACKLOG_SNAPSHOT_OPTIONS);
    console.log(`${REPORTS_QUEUE}: schedule '${BACKLOG_SNAPSHOT_SCHEDULE}' runs again (upsertSchedule).`);
  }

  /** Prints the summary; call it after `stopSchedule`, so that nothing changes while it reads. */
  async print(snapshot: QueueSnapshot, elapsedMs: number, schedule: ScheduleInfo | undefined): Promise<void> {
    const finished = [...snapshot.values()].reduce((sum, c) => sum + c.completed + c.failed, 0);
    const seconds = elapsedMs / 1000;
    console.log(`\n${finished} jobs finished in ${seconds.toFixed(2)} s: ${Math.round(finished / seconds)} jobs/s`);
    // Notes that came in after the last redraw would otherwise be lost.
    for (const note of this.events.takeNotes()) console.log(note);
    console.log(`job events seen through QueueEvents: ${this.events.describeCounts()}`);
    await this.printRetries();
    await this.printEmailKinds();
    await this.printRecurring(schedule);
    await this.printAlbums();
    await this.printQueues();
  }

  /** The flow: the album ran once, after its photos, with their results (`getJob().flow` shows the tree). */
  private async printAlbums(): Promise<void> {
    for (const listed of await this.admin.getJobs<unknown, PublishAlbumResult>(ALBUMS_QUEUE)) {
      const album = await this.admin.getJob<unknown, PublishAlbumResult>(listed.id);
      const photos = album?.flow?.childrenIds.length ?? 0;
      console.log(
        `albums: job ${listed.id} ${album?.status} after its ${photos} photos in the images queue (a flow): ${JSON.stringify(album?.result)}`,
      );
    }
  }

  /** Shows, with `getJob()`, that a retried job succeeded later and that its first error stays on record. */
  private async printRetries(): Promise<void> {
    const ids = this.billing.retriedJobIds;
    if (ids.length === 0) return;
    const job = await this.admin.getJob(ids[0]);
    console.log(`billing: ${ids.length} charges hit a simulated gateway timeout and were retried (seen by @OnJobEvent('retrying')).`);
    if (job)
      console.log(
        `  e.g. job ${job.id}: ${job.status} on attempt ${job.attempts}/${job.maxAttempts}, last error: ${job.error?.name}: ${job.error?.message}`,
      );
  }

  /** One queue, several kinds of job: `getCounts(queue, { name })` per job name, and a log line one handler stored with `job.log()`. */
  private async printEmailKinds(): Promise<void> {
    const kinds = ['newsletter', 'password-reset', 'welcome-follow-up'];
    const counts = await Promise.all(kinds.map(async (name) => (await this.admin.getCounts(EMAIL_QUEUE, { name })).completed));
    console.log(`email: completed by job name: ${kinds.map((name, i) => `${name} ${counts[i]}`).join(', ')}`);
    const [reset] = await this.admin.getJobs(EMAIL_QUEUE, { name: 'password-reset', limit: 1 });
    if (reset) console.log(`  job ${reset.id} (${reset.name}) logged: ${(await this.admin.getJobLogs(reset.id))?.join(' | ')}`);
  }

  /** The recurring job's runs (`getCounts`) and the backlog each saw, oldest first (`getJobs`). */
  private async printRecurring(schedule: ScheduleInfo | undefined): Promise<void> {
    const runs = (await this.admin.getCounts(REPORTS_QUEUE)).completed;
    const period = schedule ? (schedule.every !== null ? `every ${schedule.every} ms` : `cron '${schedule.cron}'`) : 'removed';
    console.log(
      `${REPORTS_QUEUE}: schedule '${BACKLOG_SNAPSHOT_SCHEDULE}' (${period}) ran ${runs} time${runs === 1 ? '' : 's'}; ` +
        'stopped for this summary (removeSchedule), so every figure here is of one moment',
    );
    const listed = await this.admin.getJobs<unknown, BacklogSnapshotResult>(REPORTS_QUEUE, { status: 'completed', limit: MAX_RUNS_LISTED });
    const backlog = listed.reverse().map((run) => (run.result ? run.result.waiting + run.result.running : '?'));
    console.log(`  backlog each run saw (waiting + running jobs): ${abridge(backlog, runs)}`);
  }

  /** One row per queue: `listQueues()` for state and counts, `getMetrics()` for timings of the last 15 minutes. */
  private async printQueues(): Promise<void> {
    const [queues, metrics] = await Promise.all([this.admin.listQueues(), this.admin.getMetrics()]);
    console.log(
      `  ${'queue'.padEnd(8)} ${'conc'.padStart(4)} ${'completed'.padStart(9)} ${'failed'.padStart(6)} ${'pending'.padStart(7)}   wait p50/p95 ms   run p50/p95 ms`,
    );
    for (const q of queues) {
      const { waitTime, runTime } = metrics.queues[q.name] ?? { waitTime: null, runTime: null };
      const cells = [
        q.name.padEnd(8),
        String(q.concurrency ?? '-').padStart(4),
        String(q.counts.completed).padStart(9),
        String(q.counts.failed).padStart(6),
        String(unfinished(q.counts)).padStart(7),
        formatPercentiles(waitTime).padStart(17),
        formatPercentiles(runTime).padStart(16),
      ];
      console.log(`  ${cells.join(' ')}${q.paused ? ' (paused)' : ''}${q.processed ? '' : ' (no process has a processor for it)'}`);
    }
  }
}

/** Runs the backlog line reads back: `getJobs`' largest page. */
const MAX_RUNS_LISTED = 1000;
/** Runs shown at each end of a long backlog line. */
const BACKLOG_ENDS = 6;

/** `values` (the newest of `total` runs, oldest first) joined by arrows, the middle of a long line left out and counted. */
function abridge(values: (number | string)[], total: number): string {
  if (values.length === total && total <= 2 * BACKLOG_ENDS) return values.join(' -> ');
  const head = values.length === total ? values.slice(0, BACKLOG_ENDS) : [];
  const tail = values.slice(-BACKLOG_ENDS);
  return [...head, `(${total - head.length - tail.length} more)`, ...tail].join(' -> ');
}

function formatPercentiles(p: DurationPercentiles | null): string {
  return p ? `${Math.round(p.p50)} / ${Math.round(p.p95)}` : '-';
}
