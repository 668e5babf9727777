import { ClaimRequest } from '../storage/queue-storage.interface';
import { QueueWorker } from '../worker/queue-worker';

/** The workers of this process, by queue: what the shared poller claims for. */
export class WorkerPool {
  private readonly workers = new Map<string, QueueWorker>();
  private rotation = 0;

  /** Adds a worker (the runtime has already refused duplicate queues). */
  register(worker: QueueWorker): void {
    this.workers.set(worker.queue, worker);
  }

  /** The worker of `queue` in this process, if it has one. */
  of(queue: string): QueueWorker | undefined {
    return this.workers.get(queue);
  }

  /** The rate window (ms) of a queue with a limiter, else undefined. */
  rateWindowOf(queue: string): number | undefined {
    return this.of(queue)?.settings.limiter?.duration;
  }

  /** The group window (ms) of a queue with a group limiter, else undefined. */
  groupWindowOf(queue: string): number | undefined {
    return this.of(queue)?.settings.groupLimiter?.duration;
  }

  /** Every worker. */
  all(): QueueWorker[] {
    return [...this.workers.values()];
  }

  /**
   * Shares at most `budget` claims among the queues with free slots, one slot at a time round-robin, starting
   * one queue further each round so a small budget does not always favour the same queues. `roundTripMs`: how long
   * a freed slot may wait for a claim's answer now (see SlotWaitEstimate), for the workers' lookahead (`prefetch: 'auto'`).
   */
  claimRequests(budget: number, isClosed: (queue: string) => boolean = () => false, roundTripMs = 0): ClaimRequest[] {
    const open = this.all()
      .map((worker) => ({ worker, queue: worker.queue, free: worker.claimableSlots(roundTripMs), limit: 0 }))
      .filter((entry) => entry.free > 0 && !isClosed(entry.queue));
    if (open.length === 0) return [];
    const start = this.rotation++ % open.length;
    let left = budget;
    for (let progress = true; left > 0 && progress;) {
      progress = false;
      for (let i = 0; i < open.length && left > 0; i++) {
        const entry = open[(start + i) % open.length];
        if (entry.limit < entry.free) {
          entry.limit++;
          left--;
          progress = true;
        }
      }
    }
    return open.filter((entry) => entry.limit > 0).map(({ worker, queue, limit }) => requestOf(worker, queue, limit));
  }
}

/**
 * A claim request; only limited queues carry their limits (the plain claim text stays the common case). A queue is
 * claimed as grouped once it declares a group concurrency or a group limiter, or this process has seen one of its jobs carry a group.
 */
function requestOf(worker: QueueWorker, queue: string, limit: number): ClaimRequest {
  const { limiter, globalConcurrency, groupConcurrency, groupLimiter } = worker.settings;
  const grouped = groupConcurrency !== undefined || groupLimiter !== undefined || worker.seenGroups;
  if (limiter === undefined && globalConcurrency === undefined && !grouped) return { queue, limit };
  const request: ClaimRequest = { queue, limit, rateLimited: limiter !== undefined, globalConcurrency };
  if (grouped) {
    request.grouped = true;
    request.groupConcurrency = groupConcurrency;
    if (groupLimiter !== undefined) request.groupRateLimited = true;
  }
  return request;
}
