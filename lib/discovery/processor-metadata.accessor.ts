import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProcessorMetadata } from '../decorators/processor.decorator';
import { OnJobEventMetadata } from '../decorators/on-job-event.decorator';
import { JobEventType } from '../interfaces/queue-event.interface';
import {
  ON_JOB_EVENT_METADATA,
  ON_QUEUE_EVENT_METADATA,
  PROCESSOR_METADATA,
  QUEUE_EVENTS_LISTENER_METADATA,
} from '../sqlite-queue.constants';

/** Reads `@Processor`, `@OnJobEvent`, `@QueueEventsListener` and `@OnQueueEvent` metadata; nothing else. */
@Injectable()
export class ProcessorMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The metadata of a class, or undefined when it is not a processor. */
  getProcessorMetadata(target: Function): ProcessorMetadata | undefined {
    return this.reflector.get<ProcessorMetadata | undefined>(PROCESSOR_METADATA, target);
  }

  /** What a method's `@OnJobEvent` listens to, or undefined. */
  getOnJobEventMetadata(method: Function): OnJobEventMetadata | undefined {
    return this.reflector.get<OnJobEventMetadata | undefined>(ON_JOB_EVENT_METADATA, method);
  }

  /** The queue of a `@QueueEventsListener` class, or undefined. */
  getQueueEventsListenerMetadata(target: Function): string | undefined {
    return this.reflector.get<string | undefined>(QUEUE_EVENTS_LISTENER_METADATA, target);
  }

  /** The event type of a method's `@OnQueueEvent`, or undefined. */
  getOnQueueEventMetadata(method: Function): JobEventType | undefined {
    return this.reflector.get<JobEventType | undefined>(ON_QUEUE_EVENT_METADATA, method);
  }
}
