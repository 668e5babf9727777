import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProcessorMetadata } from '../decorators/processor.decorator';
import { JobEventType } from '../interfaces/queue-event.interface';
import { ON_JOB_EVENT_METADATA, PROCESSOR_METADATA } from '../sqlite-queue.constants';

/** Reads `@Processor` and `@OnJobEvent` metadata; nothing else. */
@Injectable()
export class ProcessorMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The metadata of a class, or undefined when it is not a processor. */
  getProcessorMetadata(target: Function): ProcessorMetadata | undefined {
    return this.reflector.get<ProcessorMetadata | undefined>(PROCESSOR_METADATA, target);
  }

  /** The event type a method listens to, or undefined. */
  getOnJobEventMetadata(method: Function): JobEventType | undefined {
    return this.reflector.get<JobEventType | undefined>(ON_JOB_EVENT_METADATA, method);
  }
}
