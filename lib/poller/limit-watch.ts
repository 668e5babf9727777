import { ClaimRequest } from '../storage/queue-storage.interface';

/** Shortest and longest gap between two reads of one queue's limiter state while it keeps coming back short. */
const MIN_CHECK_GAP_MS = 10;
const MAX_CHECK_GAP_MS = 100;

/**
 * What the poller knows about queues that cannot be claimed for a while: a rate window used up (by any process) or
 * a RateLimitError pause. Such a queue is left out of claim requests until it opens, and the poller wakes at that
 * time, instead of claiming for it every round (a queue full of due jobs behind a used-up window would otherwise
 * make every round try it) or waiting for the fallback poll.
 *
 * A rate-limited queue that came back short was either drained or stopped by its window; which one, and the window's
 * end, only the database knows, so the poller asks (`QueueStorage.limitedUntil`), at most once per check gap per
 * queue. A queue the answer found open was drained: it is not asked about again until a claim brings one of its
 * jobs, so an idle limited queue costs no read per poll (idle cost stays one claim per period). Until then, a window
 * another process used up is found by the claims themselves, as for any queue.
 */
export class LimitWatch {
  private readonly closedUntil = new Map<string, number>();
  private readonly checkedAt = new Map<string, number>();
  /** Queues found open after coming back short: empty, as far as this process knows. */
  private readonly drained = new Set<string>();
  /** When a claim last brought jobs of each rate-limited queue. */
  private readonly gotJobsAt = new Map<string, number>();

  /**
   * `durationOf` gives a rate-limited queue's window in ms; `limitedOf` says which requests it watches: the queues with
   * a rate limiter by default, or (for the poller's second watch) those with a group limiter, whose answer is when
   * their first held-back group opens.
   */
  constructor(
    private readonly durationOf: (queue: string) => number | undefined,
    private readonly limitedOf: (request: ClaimRequest) => boolean = (request) => request.rateLimited === true,
  ) {}

  /** Whether `queue` is known to be closed at `now`. */
  isClosed(queue: string, now: number): boolean {
    const until = this.closedUntil.get(queue);
    if (until === undefined) return false;
    if (until > now) return true;
    this.closedUntil.delete(queue);
    return false;
  }

  /** Records that `queue` cannot be claimed before `until`. */
  close(queue: string, until: number): void {
    this.closedUntil.set(queue, Math.max(until, this.closedUntil.get(queue) ?? 0));
  }

  /**
   * Records that a read asked for at `askedAt` found `queue` open although it came back short: it was drained,
   * unless a claim brought jobs of it since the read was asked for.
   */
  open(queue: string, askedAt: number): void {
    if ((this.gotJobsAt.get(queue) ?? -Infinity) < askedAt) this.drained.add(queue);
  }

  /**
   * The rate-limited queues of a round that came back short and were not read lately: the ones to ask about
   * (`ask`). A short queue read too recently is asked about at its next round after its gap, and `askAgainAt` is the
   * earliest such time: the caller must come back by then, as nothing else may (the jobs of the round may all be
   * done before, and a used-up window frees no slot that would wake the poller).
   */
  toCheck(requests: ClaimRequest[], claimed: Map<string, number>, now: number): { ask: string[]; askAgainAt?: number } {
    const ask: string[] = [];
    let askAgainAt: number | undefined;
    for (const request of requests) {
      const got = claimed.get(request.queue) ?? 0;
      const limited = this.limitedOf(request);
      if (got > 0 && limited) {
        // The read that found it drained knew nothing of these jobs, nor of the window they count against: it no
        // longer holds the next read back. (One read per transition: only a read can mark a queue drained.)
        if (this.drained.delete(request.queue)) this.checkedAt.delete(request.queue);
        this.gotJobsAt.set(request.queue, now);
      }
      if (!limited || got >= request.limit || this.drained.has(request.queue)) continue;
      const duration = this.durationOf(request.queue) ?? MAX_CHECK_GAP_MS;
      const gap = Math.max(MIN_CHECK_GAP_MS, Math.min(MAX_CHECK_GAP_MS, duration / 10));
      // Not before a time the last answer named (the group watch's: its queue stays open, and asking again before
      // then would only name the same time).
      const checkable = Math.max((this.checkedAt.get(request.queue) ?? -Infinity) + gap, this.closedUntil.get(request.queue) ?? -Infinity);
      if (now < checkable) {
        askAgainAt = Math.min(askAgainAt ?? checkable, checkable);
        continue;
      }
      this.checkedAt.set(request.queue, now);
      ask.push(request.queue);
    }
    return askAgainAt === undefined ? { ask } : { ask, askAgainAt };
  }
}
