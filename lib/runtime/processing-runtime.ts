import { Logger } from '@nestjs/common';
import { ShutdownAbortError } from '../errors/shutdown-abort.error';
import { JobEventBus } from '../events/job-event-bus';
import { RecentCompletions } from '../events/recent-completions';
import { ProcessorAnnouncer, announcePeriod } from '../housekeeping/processor-announcer';
import { RetentionKeeper } from '../housekeeping/retention-keeper';
import { keepsNothing } from '../housekeeping/retention-rule';
import { LeaseKeeper } from '../poller/lease-keeper';
import { SharedPoller } from '../poller/shared-poller';
import { WorkerPool } from '../poller/worker-pool';
import { Scheduler } from '../scheduler/scheduler';
import { AttemptRef, QueueStorage } from '../storage/queue-storage.interface';
import { LEASE_EXPIRED_ERROR_NAME, leaseExpiredMessage } from '../storage/shared/lease-expired';
import { ProcessorDefinition } from '../worker/processor-definition';
import { OutcomeWriter } from '../worker/outcome-writer';
import { QueueWorker } from '../worker/queue-worker';
import { WorkerSettings } from '../worker/queue-worker-context';
import { QueueLimits } from '../interfaces/queue-limits.interface';
import { QueueTelemetry } from '../telemetry/queue-telemetry';
import { ResolvedModuleOptions } from './resolve-module-options';

/** Most outcomes one batch of writes carries (completions go out as one statement). */
const OUTCOME_BATCH = 500;

/**
 * Everything that runs while a process processes: the workers, the one shared poller, the lease keeper,
 * retention and the scheduler. Built and started at bootstrap; `stop()` is its single, idempotent way out.
 */
export class ProcessingRuntime {
  private readonly pool = new WorkerPool();
  private readonly poller: SharedPoller;
  private readonly leaseKeeper: LeaseKeeper;
  private readonly retention: RetentionKeeper;
  private readonly scheduler: Scheduler;
  private readonly announcer: ProcessorAnnouncer;
  private stopping?: Promise<void>;
  private started: number | null = null;

  constructor(
    private readonly storage: QueueStorage,
    definitions: ProcessorDefinition[],
    private readonly options: ResolvedModuleOptions,
    events: JobEventBus,
    private readonly logger: Logger,
    telemetry?: QueueTelemetry,
    recentCompletions?: RecentCompletions,
  ) {
    this.poller = new SharedPoller(storage, this.pool, options, logger);
    const byQueue = new Map(definitions.map((definition) => [definition.queue, definition]));
    // Resolved once: the keeper asks on every finished job.
    const moduleRetention = { removeOnComplete: options.removeOnComplete, removeOnFail: options.removeOnFail };
    const retentionByQueue = new Map(
      definitions.map(({ queue, settings }) => [
        queue,
        {
          removeOnComplete: settings.removeOnComplete ?? moduleRetention.removeOnComplete,
          removeOnFail: settings.removeOnFail ?? moduleRetention.removeOnFail,
        },
      ]),
    );
    this.retention = new RetentionKeeper(
      storage,
      (queue) => retentionByQueue.get(queue) ?? moduleRetention,
      Math.min(options.pollInterval, 1000),
      logger,
    );
    const outcomes = new OutcomeWriter(storage, options.workerId, OUTCOME_BATCH);
    for (const definition of definitions) {
      const settings = withQueueLimits(definition.settings, options.queueLimits[definition.queue]);
      const worker = new QueueWorker(definition.queue, definition.processorName, definition.instance, settings, {
        storage,
        outcomes,
        workerId: options.workerId,
        defaultBackoff: options.backoff,
        events,
        telemetry,
        logger: new Logger(`JobQueue:${definition.queue}`),
        onSlotFreed: () => this.poller.wake(),
        onRetryScheduled: (runAt) => this.poller.wakeAt(runAt),
        onFinished: (queue, status) => this.retention.mark(queue, status),
        onRemovable: (id, status) => this.retention.remove(id, status),
        keepsNoCompleted: (queue) => keepsNothing((retentionByQueue.get(queue) ?? moduleRetention).removeOnComplete),
        recentCompletions,
        onRateLimited: (queue, until) => this.poller.limitedUntil(queue, until),
        // The queue stays open: only a wake-up for when the group's pause ends (other processes see it at their poll).
        onGroupRateLimited: (_queue, until) => this.poller.wakeAt(until, true),
        maxSnoozes: options.maxSnoozes,
      });
      this.pool.register(worker);
      worker.attach(this.poller.jobsOf(definition.queue));
    }
    this.leaseKeeper = new LeaseKeeper(storage, options, logger, {
      heldAttempts: (claimedBefore) => this.pool.all().flatMap((worker) => worker.heldAttempts(claimedBefore)),
      onCancelled: (ids) => ids.forEach((id) => this.cancelLocally(id)),
      onRecovered: (jobs) => {
        for (const job of jobs) {
          events.emit({ type: 'stalled', queue: job.queue, jobId: job.id, attempt: job.attempts, requeued: job.status === 'pending' });
          if (job.status === 'failed') {
            // It failed for good here: 'failed' listeners (alerts) must hear of it like of any other final failure.
            const message = leaseExpiredMessage(job.attempts);
            events.emit({
              type: 'failed',
              queue: job.queue,
              jobId: job.id,
              attempt: job.attempts,
              error: { name: LEASE_EXPIRED_ERROR_NAME, message, attempt: job.attempts },
            });
            this.retention.mark(job.queue, 'failed');
          }
        }
        // Each requeued job is due at its own time (recovery spreads them): wake for each, so they are claimed apart.
        for (const job of jobs) if (job.status === 'pending') this.poller.wakeAt(job.runAt);
      },
    });
    this.announcer = new ProcessorAnnouncer(
      storage,
      {
        workerId: options.workerId,
        startedAt: Date.now(),
        processors: definitions.map(({ queue, settings }) => ({ queue, concurrency: settings.concurrency })),
      },
      announcePeriod(options.pollInterval),
      logger,
    );
    this.scheduler = new Scheduler(
      storage,
      options.pollInterval,
      (queue) => byQueue.get(queue)?.settings.maxAttempts ?? options.maxAttempts,
      logger,
    );
  }

  /** Epoch ms of the poller's last successful round, or null before the first. */
  get lastPollerRoundAt(): number | null {
    return this.poller.lastRoundAt;
  }

  /** Epoch ms when `start()` ran, or null before: a poller is not silent before its first round is due. */
  get startedAt(): number | null {
    return this.started;
  }

  /**
   * Records the limiters of this process's queues for every process, and creates the queues rows a limited claim
   * locks: before `start()`, so the first claim finds them.
   */
  async declareLimits(): Promise<void> {
    const now = Date.now();
    const limiters = this.pool
      .all()
      .filter(
        ({ settings }) =>
          settings.limiter !== undefined ||
          settings.globalConcurrency !== undefined ||
          settings.groupConcurrency !== undefined ||
          settings.groupLimiter !== undefined,
      )
      .map(({ queue, settings }) => ({
        queue,
        max: settings.limiter?.max ?? null,
        duration: settings.limiter?.duration ?? null,
        groupMax: settings.groupLimiter?.max ?? null,
        groupDuration: settings.groupLimiter?.duration ?? null,
      }));
    await this.storage.declareLimits(limiters, now);
    await this.declareDeadLetters(now);
  }

  /**
   * Records each queue's dead-letter queue for the database's trigger: the processor's, else the module's (never the
   * queue itself). Nothing is written when no processor has one and none says `null`.
   */
  private async declareDeadLetters(now: number): Promise<void> {
    const moduleDefault = this.options.deadLetter;
    const declared = this.pool
      .all()
      .map(({ queue, settings }) => ({ queue, deadLetter: settings.deadLetter !== undefined ? settings.deadLetter : moduleDefault }))
      .map(({ queue, deadLetter }) => ({ queue, deadLetter: deadLetter === queue ? null : deadLetter }))
      .filter(
        ({ queue, deadLetter }) =>
          deadLetter !== null || this.pool.all().some((worker) => worker.queue === queue && worker.settings.deadLetter === null),
      );
    await this.storage.declareDeadLetters(declared, now);
  }

  /** Starts every loop. */
  start(): void {
    this.started = Date.now();
    this.leaseKeeper.start();
    this.retention.start();
    this.scheduler.start();
    this.announcer.start();
    this.poller.start();
  }

  /** Asks the poller for a claim soon (work became available that no insert hint announced). */
  wake(): void {
    this.poller.wake();
  }

  /** Asks for a claim when a job this process wrote falls due. */
  wakeAt(at: number): void {
    this.poller.wakeAt(at);
  }

  /** Aborts a job if this process runs it; true when it did. */
  cancelLocally(id: string): boolean {
    return this.pool.all().some((worker) => worker.cancelRunning(id));
  }

  /** An operator paused `queue`: this process's jobs of it that have not started go back (see QueueWorker.queuePaused). */
  async queuePaused(queue: string): Promise<void> {
    await this.pool.of(queue)?.queuePaused();
  }

  /**
   * Graceful stop: claim nothing more (a claim in flight hands its jobs back unstarted), give running jobs
   * `shutdownTimeout` to finish, then abort and hand back the rest. Keeps heartbeating until the end.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopInOrder();
    return this.stopping;
  }

  private async stopInOrder(): Promise<void> {
    const workers = this.pool.all();
    workers.forEach((worker) => worker.stopAccepting());
    await Promise.all([this.poller.stop(), this.scheduler.stop(), this.announcer.stop()]);
    await this.handBack(
      workers.flatMap((worker) => worker.takeUnstarted()),
      'claimed but not started at shutdown',
    );
    const finished = await settlesWithin(Promise.all(workers.map((worker) => worker.whenIdle())), this.options.shutdownTimeout);
    if (!finished) {
      const reason = new ShutdownAbortError(
        `Application shutdown: still running after shutdownTimeout (${this.options.shutdownTimeout} ms)`,
      );
      const refs = workers.flatMap((worker) => worker.abortRunning(reason));
      // The one line that says what happens to these attempts: their handlers' rejections are not logged as failures.
      if (refs.length > 0) {
        this.logger.warn(
          `Shutdown: ${refs.length} jobs still running after shutdownTimeout (${this.options.shutdownTimeout} ms); ` +
            `aborting their signals and handing them back, attempt uncounted: ${refs.map((ref) => ref.id).join(', ')}`,
        );
      }
      await this.handBack(refs, 'still running at the shutdown deadline');
    }
    await Promise.all([this.leaseKeeper.stop(), this.retention.stop()]);
    // Nothing of this process runs any more: it shows as stopped, not as lost.
    await this.announcer.end();
    workers.forEach((worker) => worker.detach());
  }

  private async handBack(refs: AttemptRef[], what: string): Promise<void> {
    if (refs.length === 0) return;
    try {
      await this.storage.release(refs, this.options.workerId, Date.now());
    } catch (error) {
      this.logger.error(
        `Handing back ${refs.length} jobs ${what} failed (${refs.map((ref) => ref.id).join(', ')}); ` +
          `their leases will expire and free them: ${String(error)}`,
      );
    }
  }
}

/** A processor's settings with the module's limits for its queue where the processor sets none. */
function withQueueLimits(settings: WorkerSettings, moduleLimits: QueueLimits | undefined): WorkerSettings {
  if (!moduleLimits) return settings;
  return {
    ...settings,
    limiter: settings.limiter ?? moduleLimits.limiter,
    globalConcurrency: settings.globalConcurrency ?? moduleLimits.globalConcurrency,
    groupConcurrency: settings.groupConcurrency ?? moduleLimits.groupConcurrency,
    groupLimiter: settings.groupLimiter ?? moduleLimits.groupLimiter,
  };
}

/** True when `work` settles within `ms`; the timer never outlives the call. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
