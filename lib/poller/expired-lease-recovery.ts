import { Logger } from '@nestjs/common';
import { ExpiredLease, LeaseStorage, RecoveredJob } from '../storage/queue-storage.interface';
import { isTransientStorageError } from '../errors/codes/transient-error';

/**
 * One pass of lease recovery that no single job can stop. Recovery is one statement over every expired row, so a row
 * whose own write the database refuses (a trigger that fails on it, a value it cannot store) made the whole pass fail,
 * every pass, in every process, and no lease of any queue was recovered again. When that statement fails with an
 * error a retry cannot fix, the expired rows are recovered one by one instead; a row refused alone is logged once
 * (job id, queue, error), left out of the statement from then on, and tried again alone at each pass, so it is
 * recovered as soon as the database takes it. Errors a retry can get past (busy, connection lost) fail the pass as
 * before: the recovery task logs them once and backs off.
 */
export class ExpiredLeaseRecovery {
  /** Jobs whose recovery the database refused, by id: their queue. */
  private readonly refused = new Map<string, string>();

  constructor(
    private readonly storage: LeaseStorage,
    private readonly logger: Logger,
  ) {}

  /**
   * Recovers the jobs whose lease expired before `now`; hands what it took back to `onRecovered` as it goes (also
   * when the pass then fails), and throws only errors a retry can get past.
   */
  async recover(now: number, jitterWindow: number, onRecovered: (jobs: RecoveredJob[]) => void): Promise<void> {
    const skip = [...this.refused.keys()];
    try {
      onRecovered(await this.storage.recoverExpiredLeases(now, jitterWindow, skip));
    } catch (error) {
      if (isTransientStorageError(error)) throw error;
      const expired = await this.storage.findExpiredLeases(now, skip);
      const refusedBefore = this.refused.size;
      await this.oneByOne(expired, now, jitterWindow, onRecovered, true);
      if (this.refused.size === refusedBefore) {
        this.logger.warn(`Recovering expired leases in one statement failed (${String(error)}); recovered them one by one`);
      }
    }
    const refused = [...this.refused].map(([id, queue]) => ({ id, queue }));
    await this.oneByOne(refused, now, jitterWindow, onRecovered, false);
  }

  /** Recovers each job alone; a job refused for the first time is logged and remembered, one recovered forgotten. */
  private async oneByOne(
    jobs: ExpiredLease[],
    now: number,
    jitterWindow: number,
    onRecovered: (jobs: RecoveredJob[]) => void,
    firstTry: boolean,
  ): Promise<void> {
    for (const { id, queue } of jobs) {
      let recovered: RecoveredJob | null;
      try {
        recovered = await this.storage.recoverExpiredLease(id, now, jitterWindow);
      } catch (error) {
        if (isTransientStorageError(error)) throw error;
        if (firstTry) {
          this.refused.set(id, queue);
          this.logger.error(
            `Job ${id} (queue ${queue}): the database refused to recover its expired lease (${String(error)}); it stays ` +
              `running, left out of the recovery of the other jobs, and is tried again alone at each pass`,
          );
        }
        continue;
      }
      // Recovered now, or no longer running under an expired lease (another process took it, an operator removed it).
      this.refused.delete(id);
      if (recovered) onRecovered([recovered]);
    }
  }
}
