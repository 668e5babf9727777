import { filter, firstValueFrom, merge, timer } from 'rxjs';
import { WaitTimeoutError } from '../errors/wait-timeout.error';
import { JobEventBus } from '../events/job-event-bus';
import { InspectionStorage } from '../storage/queue-storage.interface';

/** What an idle check looks at. */
export interface IdleCheckSettings {
  /** One queue, or every queue. */
  queue?: string;
  /** Give up after this many ms. */
  timeout?: number;
  /** Longest pause between two checks, in ms (jobs of other processes are only seen by checking). */
  interval: number;
}

/**
 * Resolves once the queue (or every queue) has no running job and no due pending job outside paused queues.
 * Checks again at once when a job of this process settles, else every `interval` ms: a test helper, each call
 * checks for itself (one small statement per check).
 */
export async function waitUntilIdle(storage: InspectionStorage, bus: JobEventBus, settings: IdleCheckSettings): Promise<void> {
  const { queue, timeout, interval } = settings;
  const deadline = timeout === undefined ? Infinity : Date.now() + timeout;
  const settled$ = bus.events$.pipe(
    filter((event) => (queue === undefined || event.queue === queue) && event.type !== 'active' && event.type !== 'progress'),
  );
  for (;;) {
    if (await isIdle(storage, queue)) return;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(queue === undefined ? 'every queue to be idle' : `queue "${queue}" to be idle`, timeout!);
    await firstValueFrom(merge(settled$, timer(Math.min(interval, left))));
  }
}

async function isIdle(storage: InspectionStorage, queue: string | undefined): Promise<boolean> {
  // One statement: read apart, a job moving between pending and running (a claim, a hand-back, a retry due at once)
  // between the reads was in neither, and a busy queue passed for idle (seen on PostgreSQL's pool).
  return !(await storage.hasWork(queue, Date.now()));
}
