import { SetMetadata } from '@nestjs/common';
import { QUEUE_EVENTS_LISTENER_METADATA } from '../sqlite-queue.constants';

/**
 * Marks a provider whose `@OnQueueEvent` methods hear the events of `queue` from `QueueEvents`: with the module
 * option `clusterEvents`, the events of every process sharing the database (as @nestjs/bullmq's
 * `@QueueEventsListener`). Register the class as a provider of any module.
 */
export function QueueEventsListener(queue: string): ClassDecorator {
  return SetMetadata(QUEUE_EVENTS_LISTENER_METADATA, queue);
}
