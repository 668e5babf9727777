import type { AttemptRef } from '../storage-records';

/** Snoozes (`SnoozeError` thrown by a handler): the attempt's outcome write. */
export interface SnoozeStorage {
  /**
   * Puts a running attempt back to pending until `snooze.runAt` (`delay` ms from the handler's throw) without spending it (attempts - 1), counting the snooze;
   * fenced like every outcome. 'snoozed', 'exhausted' when the job already has `maxSnoozes` snoozes (nothing
   * written: the caller fails it instead), or 'lost' when the attempt is no longer ours.
   */
  snooze(
    ref: AttemptRef,
    workerId: string,
    snooze: { runAt: number; delay: number },
    maxSnoozes: number,
    now: number,
  ): Promise<'snoozed' | 'exhausted' | 'lost'>;
}
