import { Injectable, SetMetadata, applyDecorators } from '@nestjs/common';
import { ProcessorOptions } from '../interfaces/processor-options.interface';
import { PROCESSOR_METADATA } from '../sqlite-queue.constants';

/** What `@Processor` records on a class. */
export interface ProcessorMetadata {
  queue: string;
  options: ProcessorOptions;
}

/**
 * Marks a class as the processor of `queue`: its `process(job)` runs that queue's jobs. The class must also
 * be listed in some module's `providers`; it is found at boot wherever it is. Validation happens at
 * `app.init()`, which rejects with a typed error for a bad queue name, bad options or a missing `process()`.
 */
export function Processor(queue: string, options: ProcessorOptions = {}): ClassDecorator {
  const metadata: ProcessorMetadata = { queue, options };
  return applyDecorators(SetMetadata(PROCESSOR_METADATA, metadata), Injectable());
}
