import { Injectable } from '@nestjs/common';
import { Observable, filter } from 'rxjs';
import { QueueRuntime } from '../runtime/queue-runtime';
import { JobEventType, QueueEvent, QueueEventOf } from '../interfaces/queue-event.interface';

/**
 * Job events of every queue, as an RxJS `Observable` itself (as @nestjs/cqrs's `EventBus` is): `events.pipe(…)`,
 * `events.subscribe(…)`. Without the module option `clusterEvents` these are this process's events (the process
 * that runs, recovers or cancels a job emits them); with it, the events of every process sharing the database,
 * those of other processes arriving within about `pollInterval` and marked with their `origin`. Inject it anywhere.
 */
@Injectable()
export class QueueEvents extends Observable<QueueEvent> {
  constructor(private readonly runtime: QueueRuntime) {
    super((subscriber) => runtime.allEvents$.subscribe(subscriber));
  }

  /** Every event of every queue (the same stream as this object). An error thrown inside your own `subscribe` callback follows RxJS rules; prefer `@OnQueueEvent` for handlers that may throw. */
  get events$(): Observable<QueueEvent> {
    return this.runtime.allEvents$;
  }

  /** Events of one kind, optionally of one queue. */
  on<TType extends JobEventType>(type: TType, queue?: string): Observable<QueueEventOf<TType>> {
    return this.runtime.allEvents$.pipe(
      filter((event): event is QueueEventOf<TType> => event.type === type && (queue === undefined || event.queue === queue)),
    );
  }

  /**
   * With `clusterEvents`: resolves once events that other processes publish from now on reach the subscribers
   * already subscribed (the shared reader has taken its starting point). Await it after subscribing when you are
   * about to cause the events yourself (tests). Resolves at once otherwise.
   */
  listening(): Promise<void> {
    return this.runtime.clusterListening();
  }
}
