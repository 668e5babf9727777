import { Observable, Subject } from 'rxjs';
import { QueueEvent } from '../interfaces/queue-event.interface';

/** An event before it is stamped (distributes over the union, unlike a plain Omit). */
export type UnstampedEvent<T = QueueEvent> = T extends unknown ? Omit<T, 'timestamp'> : never;

/** An event that waits for the adds under way when it was emitted. */
interface HeldEvent {
  event: QueueEvent;
  /** The last add started before it: it goes out once no add up to this one is still under way. */
  after: number;
}

/** What `beginAdd` returns when nobody listens: nothing to release. */
const NOTHING_HELD = (): void => undefined;

/**
 * The process's stream of job events. `emit` cannot throw into the engine: RxJS catches subscriber errors
 * itself, and the library's own listeners (`@OnJobEvent`) are wrapped where they subscribe.
 *
 * A job this process adds can be claimed by this process before the add has returned to announce it: on PostgreSQL
 * the claim's reply may be read before the insert's, on another connection of the pool. So every event emitted while
 * an add is under way waits (in order) until the adds started before it have announced their jobs (`beginAdd`): a
 * subscriber sees `added` before that job's `active`, as documented. An event waits for earlier adds only, so adds
 * that keep overlapping never hold an event for longer than one add takes.
 */
export class JobEventBus {
  private readonly subject = new Subject<QueueEvent>();
  /** Adds under way (by sequence number) and the last number given out. */
  private readonly addsUnderWay = new Set<number>();
  private lastAdd = 0;
  /** Events waiting for adds, in the order they were emitted. */
  private readonly held: HeldEvent[] = [];
  /** Jobs written in a caller's transaction and not yet announced (by id, how many holds): see `holdJobs`. */
  private readonly unannounced = new Map<string, number>();
  /** The newest timestamp published (ms): a held event goes out no earlier, so times never run backwards. */
  private lastPublished = 0;

  /** Hot: subscribers see events emitted after they subscribe. */
  readonly events$: Observable<QueueEvent> = this.subject.asObservable();

  /** Whether anything listens: callers on the hot path skip building events when nothing does. */
  get observed(): boolean {
    return this.subject.observed;
  }

  /** Publishes an event with the current time (held while an earlier add is still under way, see above). */
  emit(event: UnstampedEvent): void {
    // Most processes listen to nothing: skip building events nobody reads on the hot path.
    if (!this.subject.observed) return;
    const stamped = { ...event, timestamp: new Date() } as QueueEvent;
    // An add announces its own jobs before it ends: its `added` events never wait for it.
    if (event.type !== 'added' && (this.addsUnderWay.size > 0 || this.isUnannounced(event.jobId) || this.waitsBehindAdds())) {
      this.held.push({ event: stamped, after: this.lastAdd });
      return;
    }
    this.publish(stamped);
  }

  /**
   * Marks an add as under way; call the returned function once it has emitted its `added` events, or failed. Events
   * emitted meanwhile wait for it. Free when nothing listens.
   */
  beginAdd(): () => void {
    if (!this.subject.observed) return NOTHING_HELD;
    const add = ++this.lastAdd;
    this.addsUnderWay.add(add);
    return () => {
      if (this.addsUnderWay.delete(add)) this.release();
    };
  }

  /**
   * Holds the events of these jobs, written in a caller's transaction, until the returned function is called: once
   * they are announced at the commit, or once the transaction rolled back (they never existed). On PostgreSQL the
   * commit's notification can wake a claim whose reply is read before the commit's own, so a job could start before
   * the commit callback announced it. Only these jobs' events wait: a long transaction holds up no other job's.
   */
  holdJobs(ids: readonly string[]): () => void {
    if (!this.subject.observed || ids.length === 0) return NOTHING_HELD;
    for (const id of ids) this.unannounced.set(id, (this.unannounced.get(id) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const id of ids) {
        const holds = (this.unannounced.get(id) ?? 1) - 1;
        if (holds > 0) this.unannounced.set(id, holds);
        else this.unannounced.delete(id);
      }
      this.release();
    };
  }

  /** Whether the job was written in a transaction whose commit has not announced it yet (see `holdJobs`). */
  private isUnannounced(jobId: string): boolean {
    return this.unannounced.size > 0 && this.unannounced.has(jobId);
  }

  /** Whether an event held for an add (not for an unannounced job) still waits: later events go out after it. */
  private waitsBehindAdds(): boolean {
    return this.held.length > 0 && this.held.some(({ event }) => !this.isUnannounced(event.jobId));
  }

  /** Ends the stream (application shutdown), after the events still held. */
  complete(): void {
    this.addsUnderWay.clear();
    this.unannounced.clear();
    this.release();
    this.subject.complete();
  }

  /** Publishes the held events whose earlier adds have all ended, in order. */
  private release(): void {
    if (this.held.length === 0) return;
    let oldest = Infinity;
    for (const add of this.addsUnderWay) oldest = Math.min(oldest, add);
    // In order, up to the first event that still waits for an add; an event of a job not yet announced stays behind
    // (its job's later events with it) without holding up the others.
    let index = 0;
    while (index < this.held.length && this.held[index].after < oldest) {
      const { event } = this.held[index];
      if (this.isUnannounced(event.jobId)) index++;
      else this.publish(this.held.splice(index, 1)[0].event);
    }
  }

  /**
   * Publishes one event, its time moved up to the newest already published: an event held for an add goes out after
   * that add's `added`, which was stamped later (the add resolves after a claim may have started its job), and a
   * listener reads the events of a job in the order of their times.
   */
  private publish(event: QueueEvent): void {
    const at = event.timestamp.getTime();
    if (at < this.lastPublished) event.timestamp = new Date(this.lastPublished);
    else this.lastPublished = at;
    this.subject.next(event);
  }
}
