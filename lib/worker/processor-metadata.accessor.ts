import { Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ProcessorMetadata } from '../decorators/processor.decorator';
import { PROCESSOR_METADATA } from '../sqlite-queue.constants';

/** Reads `@Processor` metadata; nothing else. */
@Injectable()
export class ProcessorMetadataAccessor {
  constructor(private readonly reflector: Reflector) {}

  /** The metadata of a class, or undefined when it is not a processor. */
  getProcessorMetadata(target: Function): ProcessorMetadata | undefined {
    return this.reflector.get<ProcessorMetadata | undefined>(PROCESSOR_METADATA, target);
  }
}
