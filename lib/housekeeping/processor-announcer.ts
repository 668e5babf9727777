import { Logger } from '@nestjs/common';
import { HousekeepingStorage, ProcessAnnouncement } from '../storage/queue-storage.interface';
import { closestName } from '../utils/closest-name.util';
import { PeriodicTask } from '../utils/periodic-task';

/**
 * How often a processing process renews its processor announcement and looks for unprocessed queues: 30 poll
 * periods, between 1 s and 30 s (30 s with the default poll). Two statements per period whatever the number of
 * queues, so the idle cost stays independent of it.
 */
export function announcePeriod(pollInterval: number): number {
  return Math.min(Math.max(30 * pollInterval, 1000), 30_000);
}

/** An announcement outlives three periods: a process that skips one beat (busy, a short outage) still counts. */
export const ANNOUNCEMENT_PERIODS = 3;

/**
 * How long the processes table keeps a process that shut down or went quiet: `QueueAdmin.listProcesses()` shows it
 * as stopped or lost for this long, then a beat of any process forgets it.
 */
export const ENDED_PROCESS_KEPT_MS = 60 * 60_000;

/** Who announces: the process, its start, and its processors (`ProcessAnnouncement` without the time it holds until). */
export type ProcessIdentity = Omit<ProcessAnnouncement, 'until'>;

/**
 * Most rows of ended group windows deleted per beat: the table keeps the groups that ran lately, and a burst of idle
 * groups is deleted over a few beats rather than in one long statement.
 */
export const GROUP_WINDOWS_FORGOTTEN_PER_BEAT = 1000;

/** A queue is reported unprocessed once one of its due jobs has waited this many periods with no processor anywhere. */
export const UNPROCESSED_GRACE_PERIODS = 2;

/**
 * Tells the other processes which queues this one processes, and warns once per queue about jobs that no process
 * has a processor for (a typo in a queue name, a job name passed as the queue, a worker that was never deployed).
 * Each period, whatever the number of queues: one statement announcing every local queue (`processor_until` on the
 * queues table), one (two on SQLite) recording this process's processors in the processes table and forgetting
 * processes that ended an hour ago, one forgetting the groups' rate windows that ended, one reading the queues with
 * due jobs that no live announcement covers. At
 * shutdown, `end()` marks the process stopped.
 */
export class ProcessorAnnouncer {
  private readonly task: PeriodicTask;
  private readonly warned = new Set<string>();
  private readonly queues: string[];

  constructor(
    private readonly storage: HousekeepingStorage,
    private readonly identity: ProcessIdentity,
    private readonly period: number,
    private readonly logger: Logger,
  ) {
    this.queues = identity.processors.map((processor) => processor.queue);
    this.task = new PeriodicTask(() => this.beat(Date.now()), {
      what: 'Announcing processors and looking for unprocessed queues',
      period,
      logger,
      runOnStart: true,
    });
  }

  /** Starts announcing (the first beat runs at once, so other processes see this one's queues from its start). */
  start(): void {
    this.task.start();
  }

  /** Stops the beat and waits for one in progress. Idempotent. The queues' announcement lapses on its own. */
  stop(): Promise<void> {
    return this.task.stop();
  }

  /**
   * After `stop()`, once the process has nothing running: marks it stopped in the processes table, so operators tell
   * a shutdown from a crash. A failure is logged; the row then lapses as lost, which is all a crash leaves either.
   */
  async end(): Promise<void> {
    const { workerId, startedAt } = this.identity;
    try {
      await this.storage.endProcess(workerId, startedAt, Date.now());
    } catch (error) {
      this.logger.warn(`Marking process ${workerId} stopped in the processes table failed (it will show as lost): ${String(error)}`);
    }
  }

  private async beat(now: number): Promise<void> {
    const until = now + ANNOUNCEMENT_PERIODS * this.period;
    await this.storage.announceProcessors(this.queues, until, now);
    await this.storage.announceProcess({ ...this.identity, until }, now, now - ENDED_PROCESS_KEPT_MS);
    await this.storage.forgetGroupWindows(now, GROUP_WINDOWS_FORGOTTEN_PER_BEAT);
    const unprocessed = await this.storage.unprocessedQueues(now - UNPROCESSED_GRACE_PERIODS * this.period, now);
    for (const { queue, runAt } of unprocessed) {
      if (this.warned.has(queue)) continue;
      this.warned.add(queue);
      const guess = closestName(queue, this.queues);
      this.logger.warn(
        `Queue "${queue}" has jobs waiting since ${new Date(runAt).toISOString()} and no process sharing this database has a ` +
          `@Processor for it: they will not run until one does.${guess ? ` Did you mean queue "${guess}"?` : ''} A queue carries ` +
          `several kinds of job through job names: add('${guess ?? 'queue'}', data, { name: '${queue}' }).`,
      );
    }
  }
}
