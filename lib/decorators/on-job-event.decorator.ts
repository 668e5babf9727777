import { SetMetadata } from '@nestjs/common';
import { JobEventType } from '../interfaces/queue-event.interface';
import { ON_JOB_EVENT_METADATA } from '../sqlite-queue.constants';

/**
 * Calls the decorated method of a `@Processor` class with each event of `type` of that processor's queue
 * (`(event: QueueEventOf<type>) => unknown`). A method that throws or rejects is logged with the job id and
 * never affects processing.
 */
export function OnJobEvent(type: JobEventType): MethodDecorator {
  return SetMetadata(ON_JOB_EVENT_METADATA, type);
}
