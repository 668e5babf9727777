import { SetMetadata } from '@nestjs/common';
import { JobEventType } from '../interfaces/queue-event.interface';
import { ON_QUEUE_EVENT_METADATA } from '../sqlite-queue.constants';
import { JobEventHandlerDecorator } from './on-job-event.decorator';

/**
 * In a `@QueueEventsListener(queue)` class, calls the decorated method with each event of `type` of that queue that
 * `QueueEvents` carries (of every process with `clusterEvents`). The parameter is checked against the event type.
 * A method that throws or rejects is logged with the job id.
 */
export function OnQueueEvent<TType extends JobEventType>(type: TType): JobEventHandlerDecorator<TType> {
  return SetMetadata(ON_QUEUE_EVENT_METADATA, type);
}
