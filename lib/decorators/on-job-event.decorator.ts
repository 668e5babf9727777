import { SetMetadata } from '@nestjs/common';
import { JobCompletedEvent, JobEventType, QueueEventOf } from '../interfaces/queue-event.interface';
import { ON_JOB_EVENT_METADATA } from '../sqlite-queue.constants';

/** What `@OnJobEvent` stores on a method. */
export interface OnJobEventMetadata {
  type: JobEventType;
  queue?: string;
}

/** Options of `@OnJobEvent`. */
export interface OnJobEventOptions {
  /** Only events of this queue. Default: on a `@Processor`, its queue; on any other provider, every queue. */
  queue?: string;
}

/**
 * The event a handler of `TType` must accept. A completed event's result is typed by the handler (`JobCompletedEvent<MyResult>`):
 * `never` as the result here lets any result type through while still rejecting a handler of another event.
 */
export type JobEventHandlerParameter<TType extends JobEventType> = TType extends 'completed'
  ? JobCompletedEvent<never>
  : QueueEventOf<TType>;

/** A method decorator that only accepts a handler of the event of `TType` (or of a wider type). */
export type JobEventHandlerDecorator<TType extends JobEventType> = <THandler extends (event: JobEventHandlerParameter<TType>) => unknown>(
  target: object,
  propertyKey: string | symbol,
  descriptor: TypedPropertyDescriptor<THandler>,
) => void;

/**
 * Calls the decorated method with each event of `type` that THIS process emits (`(event: QueueEventOf<type>) =>
 * unknown`, checked by the compiler). Works on any singleton provider: on a `@Processor` class it hears that
 * processor's queue, elsewhere every queue unless `options.queue` names one. A method that throws or rejects is
 * logged with the job id and never affects processing. For events of every process, see `@OnQueueEvent`.
 */
export function OnJobEvent<TType extends JobEventType>(type: TType, options: OnJobEventOptions = {}): JobEventHandlerDecorator<TType> {
  return SetMetadata<string, OnJobEventMetadata>(ON_JOB_EVENT_METADATA, { type, queue: options.queue });
}
