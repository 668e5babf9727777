import { Logger } from '@nestjs/common';
import { MAX_RECOVERY_JITTER_MS } from '../module-defaults.constants';
import { AttemptRef, LeaseStorage, RecoveredJob } from '../storage/queue-storage.interface';
import { PeriodicTask } from '../utils/periodic-task';
import { ExpiredLeaseRecovery } from './expired-lease-recovery';

/** Settings of the lease keeper. */
export interface LeaseKeeperSettings {
  workerId: string;
  leaseDuration: number;
  pollInterval: number;
}

/** What the lease keeper needs to know about, and tell, the rest of the process. */
export interface LeaseKeeperHooks {
  /**
   * The attempts this process holds (running, being saved, waiting for a slot): the heartbeat renews these. With
   * `claimedBefore` (epoch ms), only those claimed before then (attempts being handed back always count).
   */
  heldAttempts(claimedBefore?: number): AttemptRef[];
  /** Some of our running attempts were cancelled in the database. */
  onCancelled(ids: string[]): void;
  /** Jobs whose lease had expired were taken back. */
  onRecovered(jobs: RecoveredJob[]): void;
}

/**
 * Keeps this process's leases alive with one heartbeat statement for all its jobs, notices cancellations
 * of its running jobs made by other processes, and takes back the jobs of processes that stopped renewing
 * theirs (one job the database refuses to recover cannot stop that: see ExpiredLeaseRecovery). Both run as their own periodic tasks, so a slow claim never starves a heartbeat.
 */
export class LeaseKeeper {
  private readonly heartbeatTask: PeriodicTask;
  private readonly recoveryTask: PeriodicTask;
  private readonly recovery: ExpiredLeaseRecovery;
  /**
   * Attempts claimed less than this long ago (ms) are not renewed: their claim's lease is nearly whole. A process
   * holds hundreds of attempts claimed moments ago when its jobs are short, and renewing each was a row update per beat
   * for nothing (a new row version and running-index entry on PostgreSQL). At most one beat,
   * and at most what keeps two missed beats of slack before a skipped lease could expire: 0 when the lease is three beats,
   * and 0 where a renewal may wait for a lock (`skipsFreshLeases` unset: SQLite).
   */
  private readonly freshWindow: number;

  constructor(
    private readonly storage: LeaseStorage,
    private readonly settings: LeaseKeeperSettings,
    private readonly logger: Logger,
    private readonly hooks: LeaseKeeperHooks,
  ) {
    // A third of the lease leaves two missed beats of slack before anyone may take our jobs; beating at least
    // once per poll also bounds how late a cancellation made elsewhere reaches a running handler.
    const beat = Math.max(1, Math.min(Math.floor(settings.leaseDuration / 3), settings.pollInterval));
    // Skipped at one beat, an attempt is renewed by the next: by `freshWindow + beat` after its claim, then each beat.
    this.freshWindow = storage.skipsFreshLeases ? Math.max(0, Math.min(beat, settings.leaseDuration - 3 * beat)) : 0;
    // The heartbeat is logged once per outage but never skipped: the beat is already bounded by the lease, and a
    // beat that backed off past the database's return could let a lease expire that the outage had spared.
    this.heartbeatTask = new PeriodicTask(() => this.heartbeat(), {
      what: `Heartbeat of worker ${settings.workerId}`,
      period: beat,
      logger,
      backsOff: false,
    });
    this.recovery = new ExpiredLeaseRecovery(storage, logger);
    // Checking more often than half a lease finds nothing sooner in practice; less often than a poll is pointless.
    const recovery = Math.max(settings.pollInterval, Math.floor(settings.leaseDuration / 2));
    this.recoveryTask = new PeriodicTask(() => this.recover(), {
      what: 'Recovering expired leases',
      period: recovery,
      logger,
      runOnStart: true,
    });
  }

  /** Starts the heartbeat and the recovery loop (which runs once at once). */
  start(): void {
    this.heartbeatTask.start();
    this.recoveryTask.start();
  }

  /** Stops both loops and waits for a statement in progress. Idempotent. */
  async stop(): Promise<void> {
    await Promise.all([this.heartbeatTask.stop(), this.recoveryTask.stop()]);
  }

  private async heartbeat(): Promise<boolean> {
    // No statement while the process holds nothing.
    const held = this.hooks.heldAttempts();
    if (held.length === 0) return false;
    const now = Date.now();
    const due = this.freshWindow > 0 ? this.hooks.heldAttempts(now - this.freshWindow) : held;
    if (due.length > 0) await this.storage.extendLeases(due, this.settings.workerId, this.settings.leaseDuration, now);
    // Every held attempt, the fresh ones too: a cancellation made elsewhere reaches its handler within a beat.
    const cancelled = await this.storage.findCancelled(held, this.settings.workerId);
    if (cancelled.length > 0) this.hooks.onCancelled(cancelled);
    return true;
  }

  private async recover(): Promise<void> {
    const jitterWindow = Math.min(this.settings.leaseDuration, MAX_RECOVERY_JITTER_MS);
    await this.recovery.recover(Date.now(), jitterWindow, (recovered) => {
      for (const job of recovered) {
        const outcome = job.status === 'failed' ? 'failed: no attempts left' : `requeued, due in ${Math.max(0, job.runAt - Date.now())} ms`;
        this.logger.warn(`Job ${job.id} (queue ${job.queue}): lease expired during attempt ${job.attempts}; ${outcome}`);
      }
      if (recovered.length > 0) this.hooks.onRecovered(recovered);
    });
  }
}
