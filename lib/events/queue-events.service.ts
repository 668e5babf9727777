import { Injectable } from '@nestjs/common';
import { Observable, filter } from 'rxjs';
import { QueueFactory } from '../factory/queue.factory';
import { JobEventType, QueueEvent, QueueEventOf } from '../interfaces/queue-event.interface';

/**
 * Job events of every queue, as an RxJS stream. Events are those of this process: the process that runs
 * (or recovers, or cancels) a job emits its events. Inject it anywhere.
 */
@Injectable()
export class QueueEvents {
  constructor(private readonly factory: QueueFactory) {}

  /** Every event of every queue. An error thrown inside your own `subscribe` callback follows RxJS rules; prefer `@OnJobEvent` for handlers that may throw. */
  get events$(): Observable<QueueEvent> {
    return this.factory.events.events$;
  }

  /** Events of one kind, optionally of one queue. */
  on<TType extends JobEventType>(type: TType, queue?: string): Observable<QueueEventOf<TType>> {
    return this.events$.pipe(
      filter((event): event is QueueEventOf<TType> => event.type === type && (queue === undefined || event.queue === queue)),
    );
  }
}
