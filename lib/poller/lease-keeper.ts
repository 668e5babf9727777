import { Logger } from '@nestjs/common';
import { QueueStorage } from '../storage/queue-storage.interface';

/** Settings of the lease keeper. */
export interface LeaseKeeperSettings {
  workerId: string;
  leaseDuration: number;
  pollInterval: number;
}

/**
 * Keeps this process's leases alive with one heartbeat statement for all its jobs, and takes back the
 * jobs of processes that stopped renewing theirs. Both run on plain timers, independent of the claim loop,
 * so a slow claim can never starve a heartbeat.
 */
export class LeaseKeeper {
  private heartbeatTimer?: NodeJS.Timeout;
  private recoveryTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly storage: QueueStorage,
    private readonly settings: LeaseKeeperSettings,
    private readonly logger: Logger,
    /** Whether this process holds any job: no heartbeat statement while it holds none. */
    private readonly holdsJobs: () => boolean,
    /** Called when recovery made jobs claimable again. */
    private readonly onRecovered: () => void,
  ) {}

  /** Starts both timers. */
  start(): void {
    // A third of the lease leaves two missed beats of slack before anyone may take our jobs.
    this.heartbeatTimer = setInterval(() => this.track(this.heartbeat()), Math.max(1, Math.floor(this.settings.leaseDuration / 3)));
    // Checking more often than half a lease finds nothing sooner in practice; less often than a poll is pointless.
    this.recoveryTimer = setInterval(
      () => this.track(this.recover()),
      Math.max(this.settings.pollInterval, Math.floor(this.settings.leaseDuration / 2)),
    );
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
    if (this.stopped || !this.holdsJobs()) return;
    const now = Date.now();
    try {
      await this.storage.extendLeases(this.settings.workerId, now + this.settings.leaseDuration, now);
    } catch (error) {
      this.logger.error(`Heartbeat of worker ${this.settings.workerId} failed; retrying on the next beat: ${String(error)}`);
    }
  }

  private async recover(): Promise<void> {
    if (this.stopped) return;
    try {
      const recovered = await this.storage.recoverExpiredLeases(Date.now());
      for (const job of recovered) {
        const outcome = job.status === 'failed' ? 'failed: no attempts left' : 'requeued';
        this.logger.warn(`Job ${job.id} (queue ${job.queue}): lease expired during attempt ${job.attempts}; ${outcome}`);
      }
      if (recovered.some((job) => job.status === 'pending')) this.onRecovered();
    } catch (error) {
      this.logger.error(`Recovering expired leases failed; retrying later: ${String(error)}`);
    }
  }
}
