import { AttemptRef, JobRecord } from '../storage/queue-storage.interface';
import { QueueWorkerContext } from './queue-worker-context';

/** What a queue's RateLimitError pause reaches of the process: the storage's pause and release, the writer's retry rule. */
export type RateLimitContext = Pick<
  QueueWorkerContext,
  'storage' | 'outcomes' | 'workerId' | 'logger' | 'onRateLimited' | 'onGroupRateLimited'
>;

/** What the pause needs of the worker it belongs to. */
export interface PausedWorker {
  /** Aborted at forced shutdown: a failing write is no longer retried. */
  signal: AbortSignal;
  /**
   * Takes the worker's jobs that have not started (prefetched, or following a save), for handing back: all of them, or
   * those of one group.
   */
  takeUnstarted(group?: string): AttemptRef[];
  /** Jobs being handed back were released (or given up on): the worker may have become idle. */
  onReturned(): void;
}

/**
 * One queue's pause after a handler threw RateLimitError: it pauses the queue for every process, and hands back,
 * unspent, the job and the jobs claimed for the queue that have not started (prefetched, or routed during the pause):
 * they would otherwise start during the pause, each to hit the limit again. A GroupRateLimitError does the same for
 * its job's group alone: the group pauses for every process, and only that group's unstarted jobs go back.
 */
export class RateLimitPause {
  /** Until when a RateLimitError of this queue paused it (epoch ms): jobs routed before then go back unstarted. */
  private until = 0;
  /** Until when a GroupRateLimitError paused each group, the same way (entries are dropped once past). */
  private readonly groupUntil = new Map<string, number>();
  /** The last pause being written: jobs go back only once it has landed. */
  private written: Promise<void> = Promise.resolve();
  /** Jobs routed during that pause in this turn of the event loop: a claim routes its jobs together. */
  private refused: AttemptRef[] = [];
  /** Jobs on their way back unstarted: still the worker's (leases kept, shutdown waits) until released. */
  private returningRefs: AttemptRef[] = [];

  constructor(
    private readonly queue: string,
    private readonly context: RateLimitContext,
    private readonly worker: PausedWorker,
  ) {}

  /** The jobs on their way back unstarted. */
  get returning(): readonly AttemptRef[] {
    return this.returningRefs;
  }

  /**
   * Whether `job`, routed now, must go back unstarted: a claim that was in flight when its queue or its group paused.
   * (No clock read on the plain path: `until` is 0 and the map empty until a queue or group is limited.)
   */
  holds(job: JobRecord): boolean {
    if (this.until > 0 && Date.now() < this.until) return true;
    if (this.groupUntil.size === 0 || job.group === null || job.group === undefined) return false;
    const until = this.groupUntil.get(job.group);
    if (until === undefined) return false;
    if (Date.now() < until) return true;
    this.groupUntil.delete(job.group);
    return false;
  }

  /**
   * Pauses the queue (or, with `group`, that group of it) for every process and hands the job back unspent, with the
   * worker's jobs (of that group) that have not started; its run is recorded from `ref` (the attempt as its handler
   * had it: its start, and the size of the batch call it ran in, if any).
   * The job's slot frees when the worker's run of it settles.
   */
  async pause(record: JobRecord, until: number, ref: AttemptRef, group?: string): Promise<void> {
    // In the same tick: the waiting jobs taken, later ones refused, and the poller told, so no claim takes their room.
    if (group === undefined) this.until = Math.max(this.until, until);
    else this.groupUntil.set(group, Math.max(this.groupUntil.get(group) ?? 0, until));
    const prefetched = this.worker.takeUnstarted(group);
    if (group === undefined) this.context.onRateLimited?.(this.queue, until);
    else this.context.onGroupRateLimited?.(this.queue, until);
    this.written = this.writePause(record, until, ref, group);
    await this.handBackUnstarted(prefetched, `a ${group === undefined ? 'RateLimitError' : 'GroupRateLimitError'} pause`);
  }

  /**
   * An operator paused the queue (`admin.pause`, in this process): the worker's jobs that have not started go back,
   * unspent, so none of them starts while the queue is paused. The pause is already written. Never rejects.
   */
  async handBackForPause(): Promise<void> {
    await this.handBackUnstarted(this.worker.takeUnstarted(), 'the pause of the queue');
  }

  /** Hands a job routed during the pause back with the others its claim routed: one statement for them all. */
  refuse(job: JobRecord): void {
    if (this.refused.push({ id: job.id, attempt: job.attempts }) > 1) return;
    queueMicrotask(() => void this.handBackUnstarted(this.refused.splice(0), 'a rate limit pause'));
  }

  /** Writes the pause and hands the job back; never rejects (a failure is logged, the lease frees the job). */
  private async writePause(record: JobRecord, until: number, ref: AttemptRef, group?: string): Promise<void> {
    const { storage, workerId, logger } = this.context;
    const [error, what] = group === undefined ? ['RateLimitError', 'the queue'] : ['GroupRateLimitError', `its group "${group}"`];
    try {
      const owned = await this.context.outcomes.retrying(
        { ref, queue: this.queue, kind: 'rateLimit', logger, signal: this.worker.signal },
        () =>
          group === undefined
            ? storage.rateLimit(this.queue, ref, workerId, until, Date.now())
            : storage.groupRateLimit(this.queue, group, ref, workerId, until, Date.now()),
      );
      if (!owned) logger.warn(`Job ${record.id} (queue ${this.queue}): no longer owned when handed back after ${error}`);
    } catch (failure) {
      logger.error(
        `Job ${record.id} (queue ${this.queue}): pausing ${what} after ${error} failed; the job's lease will expire and free it: ${String(failure)}`,
      );
    }
  }

  /**
   * Hands back, unspent, jobs that must not start during the pause; once the pause is written, so no process claims
   * them before it sees the pause. Never rejects.
   */
  private async handBackUnstarted(refs: AttemptRef[], pause: string): Promise<void> {
    this.returningRefs.push(...refs);
    try {
      await this.written;
      if (refs.length > 0) await this.context.storage.release(refs, this.context.workerId, Date.now());
    } catch (error) {
      this.context.logger.error(
        `Jobs ${refs.map((ref) => ref.id).join(', ')} (queue ${this.queue}): handing back jobs claimed before ${pause} ` +
          `failed; their leases will expire and free them: ${String(error)}`,
      );
    } finally {
      this.returningRefs = this.returningRefs.filter((ref) => !refs.includes(ref));
      this.worker.onReturned();
    }
  }
}
