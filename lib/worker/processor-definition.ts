import { QueueProcessor } from '../interfaces/queue-processor.interface';
import { WorkerSettings } from './queue-worker-context';

/** A discovered and validated `@Processor`. */
export interface ProcessorDefinition {
  queue: string;
  processorName: string;
  instance: QueueProcessor;
  settings: WorkerSettings;
}
