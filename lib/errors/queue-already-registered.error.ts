import { QueueError } from './queue.error';

/** Two `@Processor` classes claim the same queue in one application; `app.init()` rejects with it. */
export class QueueAlreadyRegisteredError extends QueueError {
  constructor(
    /** The queue both processors name. */
    readonly queue: string,
    /** Class name of the processor registered first. */
    readonly existingProcessor: string,
    /** Class name of the processor that tried to register second. */
    readonly duplicateProcessor: string,
  ) {
    super(
      `Queue "${queue}" already has a processor: ${existingProcessor}. ` +
        `${duplicateProcessor} cannot also be @Processor('${queue}'); one queue has exactly one processor class per application.`,
    );
  }
}
