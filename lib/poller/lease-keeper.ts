import { Logger } from '@nestjs/common';
import { MAX_RECOVERY_JITTER_MS } from '../sqlite-queue.constants';
import { AttemptRef, QueueStorage, RecoveredJob } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';

/** Settings of the lease keeper. */
export interface LeaseKeeperSettings {
  workerId: string;
  leaseDuration: number;
  pollInterval: number;
}

/** What the lease keeper needs to know about, and tell, the rest of the process. */
export interface LeaseKeeperHooks {
  /** The attempts this process holds (running, being saved, waiting for a slot): the heartbeat renews these. */
  heldAttempts(): AttemptRef[];
  /** Some of our running attempts were cancelled in the database. */
  onCancelled(ids: string[]): void;
  /** Jobs whose lease had expired were taken back. */
  onRecovered(jobs: RecoveredJob[]): void;
}

/**
 * Keeps this process's leases alive with one heartbeat statement for all its jobs, notices cancellations
 * of its running jobs made by other processes, and takes back the jobs of processes that stopped renewing
 * theirs. It runs on its own timers, so a slow claim never starves a heartbeat.
 */
export class LeaseKeeper {
  private heartbeatTimer?: NodeJS.Timeout;
  private recoveryTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();
  private heartbeatFailures?: FailureStreak;
  private recoveryFailures?: FailureStreak;

  constructor(
    private readonly storage: QueueStorage,
    private readonly settings: LeaseKeeperSettings,
    private readonly logger: Logger,
    private readonly hooks: LeaseKeeperHooks,
  ) {}

  /** Starts both timers. */
  start(): void {
    // A third of the lease leaves two missed beats of slack before anyone may take our jobs; beating at least
    // once per poll also bounds how late a cancellation made elsewhere reaches a running handler.
    const beat = Math.max(1, Math.min(Math.floor(this.settings.leaseDuration / 3), this.settings.pollInterval));
    this.heartbeatFailures = new FailureStreak(this.logger, `Heartbeat of worker ${this.settings.workerId}`, beat, false);
    this.heartbeatTimer = setInterval(() => this.track(this.heartbeat()), beat);
    // Checking more often than half a lease finds nothing sooner in practice; less often than a poll is pointless.
    const recovery = Math.max(this.settings.pollInterval, Math.floor(this.settings.leaseDuration / 2));
    this.recoveryFailures = new FailureStreak(this.logger, 'Recovering expired leases', recovery);
    this.recoveryTimer = setInterval(() => this.track(this.recover()), recovery);
    this.track(this.recover());
  }

  /** Stops both timers and waits for a statement in progress. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.heartbeatTimer);
    clearInterval(this.recoveryTimer);
    await Promise.all(this.inFlight);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    // No statement while the process holds nothing.
    const held = this.hooks.heldAttempts();
    if (held.length === 0) return;
    const now = Date.now();
    try {
      await this.storage.extendLeases(held, this.settings.workerId, this.settings.leaseDuration, now);
      const cancelled = await this.storage.findCancelled(held, this.settings.workerId);
      if (cancelled.length > 0) this.hooks.onCancelled(cancelled);
      this.heartbeatFailures?.succeeded();
    } catch (error) {
      // Logged once per outage, but never skipped: the beat is already bounded by the lease, and a beat that
      // backed off past the database's return could let a lease expire that the outage had spared.
      this.heartbeatFailures?.failed(error);
    }
  }

  private async recover(): Promise<void> {
    if (this.stopped || this.recoveryFailures?.canTry() === false) return;
    try {
      const jitterWindow = Math.min(this.settings.leaseDuration, MAX_RECOVERY_JITTER_MS);
      const recovered = await this.storage.recoverExpiredLeases(Date.now(), jitterWindow);
      for (const job of recovered) {
        const outcome = job.status === 'failed' ? 'failed: no attempts left' : `requeued, due in ${Math.max(0, job.runAt - Date.now())} ms`;
        this.logger.warn(`Job ${job.id} (queue ${job.queue}): lease expired during attempt ${job.attempts}; ${outcome}`);
      }
      if (recovered.length > 0) this.hooks.onRecovered(recovered);
      this.recoveryFailures?.succeeded();
    } catch (error) {
      this.recoveryFailures?.failed(error);
    }
  }
}
