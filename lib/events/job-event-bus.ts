import { Observable, Subject } from 'rxjs';
import { QueueEvent } from '../interfaces/queue-event.interface';

/** An event before it is stamped (distributes over the union, unlike a plain Omit). */
export type UnstampedEvent<T = QueueEvent> = T extends unknown ? Omit<T, 'timestamp'> : never;

/**
 * The process's stream of job events. `emit` cannot throw into the engine: RxJS catches subscriber errors
 * itself, and the library's own listeners (`@OnJobEvent`) are wrapped where they subscribe.
 */
export class JobEventBus {
  private readonly subject = new Subject<QueueEvent>();

  /** Hot: subscribers see events emitted after they subscribe. */
  readonly events$: Observable<QueueEvent> = this.subject.asObservable();

  /** Whether anything listens: callers on the hot path skip building events when nothing does. */
  get observed(): boolean {
    return this.subject.observed;
  }

  /** Publishes an event with the current time. */
  emit(event: UnstampedEvent): void {
    // Most processes listen to nothing: skip building events nobody reads on the hot path.
    if (!this.subject.observed) return;
    this.subject.next({ ...event, timestamp: new Date() } as QueueEvent);
  }

  /** Ends the stream (application shutdown). */
  complete(): void {
    this.subject.complete();
  }
}
