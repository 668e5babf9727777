import { Injectable, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InvalidEventListenerError } from '../errors/invalid-event-listener.error';
import { QueueRuntime } from '../runtime/queue-runtime';
import { JOB_EVENT_TYPES, JobEventType } from '../interfaces/queue-event.interface';
import { providerClassOf } from '../utils/provider-class.util';
import { assertQueueName } from '../utils/queue-name.util';
import { ProcessorMetadataAccessor } from './processor-metadata.accessor';

interface QueueListenerMethod {
  queue: string;
  type: JobEventType;
  handler: (event: unknown) => unknown;
  label: string;
}

/**
 * Finds event handlers on providers that are not processors (`ProcessorExplorer` wires those of processors):
 * `@OnJobEvent` methods of any provider (this process's events), and `@QueueEventsListener` classes with their
 * `@OnQueueEvent` methods (what `QueueEvents` carries: every process's events with `clusterEvents`). Misuse fails
 * boot with `InvalidEventListenerError`; nothing is ignored silently.
 */
@Injectable()
export class EventListenerExplorer implements OnModuleInit, OnApplicationBootstrap {
  private readonly queueListeners: QueueListenerMethod[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: ProcessorMetadataAccessor,
    private readonly runtime: QueueRuntime,
  ) {}

  onModuleInit(): void {
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const target = providerClassOf(wrapper);
      if (!target || this.accessor.getProcessorMetadata(target)) continue;
      const listenerQueue = this.accessor.getQueueEventsListenerMetadata(target);
      const methods = this.decoratedMethods(target);
      if (listenerQueue === undefined && methods.length === 0) continue;
      const name = target.name || 'anonymous class';
      if (!wrapper.isDependencyTreeStatic()) {
        throw new InvalidEventListenerError(
          name,
          'it is request-scoped (or depends on a request-scoped provider); event listeners must be singletons',
        );
      }
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || seen.has(instance)) continue;
      seen.add(instance);
      if (listenerQueue !== undefined) assertQueueName(listenerQueue);
      for (const { method, onJobEvent, onQueueEvent } of methods) {
        const handler = (event: unknown) => (instance[method] as (event: unknown) => unknown).call(instance, event);
        const label = `${name}.${method}()`;
        if (onJobEvent) {
          assertEventType(name, method, 'OnJobEvent', onJobEvent.type);
          if (onJobEvent.queue !== undefined) assertQueueName(onJobEvent.queue);
          this.runtime.addEventListener(onJobEvent.queue, onJobEvent.type, handler, label);
        }
        if (onQueueEvent) {
          assertEventType(name, method, 'OnQueueEvent', onQueueEvent);
          if (listenerQueue === undefined) {
            throw new InvalidEventListenerError(
              name,
              `@OnQueueEvent('${onQueueEvent}') on ${method}() needs @QueueEventsListener(queue) on the class`,
            );
          }
          this.queueListeners.push({ queue: listenerQueue, type: onQueueEvent, handler, label });
        }
      }
    }
  }

  /**
   * Subscribes the `@QueueEventsListener` methods. With `clusterEvents`, other processes' events reach them from
   * about one `pollInterval` after boot (`QueueEvents.listening()` resolves then); boot does not wait for it.
   */
  onApplicationBootstrap(): void {
    if (this.queueListeners.length > 0) {
      const classes = [...new Set(this.queueListeners.map(({ label, queue }) => `${label.slice(0, label.lastIndexOf('.'))} ('${queue}')`))];
      this.runtime.noticeLocalListeners(`@QueueEventsListener ${classes.length > 1 ? 'classes' : 'class'} ${classes.join(', ')}`);
    }
    for (const { queue, type, handler, label } of this.queueListeners) {
      this.runtime.addEventListener(queue, type, handler, label, this.runtime.allEvents$);
    }
  }

  private decoratedMethods(target: Function) {
    const prototype = target.prototype as Record<string, unknown> | undefined;
    if (!prototype) return [];
    return this.scanner.getAllMethodNames(prototype).flatMap((method) => {
      const value = prototype[method];
      if (typeof value !== 'function') return [];
      const onJobEvent = this.accessor.getOnJobEventMetadata(value);
      const onQueueEvent = this.accessor.getOnQueueEventMetadata(value);
      return onJobEvent || onQueueEvent ? [{ method, onJobEvent, onQueueEvent }] : [];
    });
  }
}

function assertEventType(listener: string, method: string, decorator: string, type: unknown): void {
  if (!JOB_EVENT_TYPES.includes(type as JobEventType)) {
    throw new InvalidEventListenerError(
      listener,
      `@${decorator}('${String(type)}') on ${method}() names no event (known: ${JOB_EVENT_TYPES.join(', ')})`,
    );
  }
}
