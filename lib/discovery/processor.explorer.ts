import { Injectable, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InvalidProcessorError } from '../errors/invalid-processor.error';
import { InvalidScheduleError } from '../errors/invalid-schedule.error';
import { ProcessorOptions } from '../interfaces/processor-options.interface';
import { DeclaredSchedule } from '../interfaces/schedule-options.interface';
import { JOB_EVENT_TYPES } from '../interfaces/queue-event.interface';
import { QueueProcessor } from '../interfaces/queue-processor.interface';
import { QueueRuntime } from '../runtime/queue-runtime';
import { PROCESSOR_DEFAULTS } from '../module-defaults.constants';
import { toScheduleRecord } from '../scheduler/schedule-definition';
import { backoffInputProblem } from '../utils/backoff.util';
import { retentionProblem } from '../housekeeping/retention-rule';
import { queueLimitsProblem } from '../utils/queue-limits.util';
import { didYouMean } from '../utils/closest-name.util';
import { providerClassOf } from '../utils/provider-class.util';
import { payloadSchemaProblem, toPayloadSchema } from '../utils/payload-schema.util';
import { assertQueueName, isQueueName } from '../utils/queue-name.util';
import { LIMITS, MAX_TIMER_MS, describeValue, isIntegerInRange, isTimerDuration } from '../utils/validation.util';
import { ProcessorMetadataAccessor } from './processor-metadata.accessor';
import { WorkerSettings } from '../worker/queue-worker-context';

const KNOWN_OPTIONS = new Set<string>([
  'concurrency',
  'prefetch',
  'maxAttempts',
  'backoff',
  'timeout',
  'removeOnComplete',
  'removeOnFail',
  'schedules',
  'limiter',
  'globalConcurrency',
  'groupConcurrency',
  'groupLimiter',
  'deadLetter',
  'schema',
  'batch',
]);
const BATCH_KEYS = new Set<string>(['size', 'maxWaitMs']);
/** Most jobs per call of a batch processor. */
const MAX_BATCH_SIZE = 10_000;

/** Finds every `@Processor` among the application's providers at boot, validates it and registers it. */
@Injectable()
export class ProcessorExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: ProcessorMetadataAccessor,
    private readonly runtime: QueueRuntime,
  ) {}

  onModuleInit(): void {
    // An alias (`useExisting`) hands out the instance it points to: one processor, found under two tokens.
    const seen = new Set<unknown>();
    for (const wrapper of this.discovery.getProviders()) {
      const processorClass = providerClassOf(wrapper, (type) => this.accessor.getProcessorMetadata(type) !== undefined);
      if (!processorClass) continue;
      const metadata = this.accessor.getProcessorMetadata(processorClass)!;
      const name = processorClass.name || 'anonymous class';
      assertQueueName(metadata.queue);
      if (!wrapper.isDependencyTreeStatic()) {
        throw new InvalidProcessorError(
          name,
          metadata.queue,
          'it is request-scoped (or depends on a request-scoped provider); processors must be singletons',
        );
      }
      const instance = wrapper.instance as Partial<QueueProcessor> | undefined;
      if (!instance || typeof instance.process !== 'function') {
        throw new InvalidProcessorError(
          name,
          metadata.queue,
          'it has no process(job) method; implement QueueProcessor or extend WorkerHost',
        );
      }
      if (seen.has(instance)) continue;
      seen.add(instance);
      const settings = validateSettings(name, metadata.queue, metadata.options);
      if (settings.schema !== undefined) {
        this.runtime.declareSchema(
          metadata.queue,
          settings.schema,
          (reason) => new InvalidProcessorError(name, metadata.queue, `schema: ${reason}`),
        );
      }
      this.runtime.registerProcessor({ queue: metadata.queue, processorName: name, instance: instance as QueueProcessor, settings });
      this.registerEventListeners(instance as object, metadata.queue, name);
    }
  }

  private registerEventListeners(instance: object, queue: string, processorName: string): void {
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const method of this.scanner.getAllMethodNames(prototype)) {
      const handler = prototype[method];
      if (typeof handler !== 'function') continue;
      const metadata = this.accessor.getOnJobEventMetadata(handler);
      if (!metadata) continue;
      const { type } = metadata;
      if (!JOB_EVENT_TYPES.includes(type)) {
        throw new InvalidProcessorError(
          processorName,
          queue,
          `@OnJobEvent('${String(type)}') on ${method}() names no event (known: ${JOB_EVENT_TYPES.join(', ')})`,
        );
      }
      this.runtime.addEventListener(
        metadata.queue ?? queue,
        type,
        (event) => handler.call(instance, event),
        `${processorName}.${method}()`,
      );
    }
  }
}

function validateSettings(name: string, queue: string, options: ProcessorOptions): WorkerSettings {
  const invalid = (reason: string) => new InvalidProcessorError(name, queue, reason);
  if (typeof options !== 'object' || options === null) throw invalid('options must be an object');
  for (const key of Object.keys(options)) {
    if (!KNOWN_OPTIONS.has(key)) {
      throw invalid(`unknown option "${key}"${didYouMean(key, KNOWN_OPTIONS)}; known: ${[...KNOWN_OPTIONS].join(', ')}`);
    }
  }
  const batchProblem = options.batch === undefined ? null : batchOptionsProblem(options.batch);
  if (batchProblem) throw invalid(`batch ${batchProblem}`);
  const concurrency = options.concurrency ?? options.batch?.size ?? PROCESSOR_DEFAULTS.concurrency;
  if (!isIntegerInRange(concurrency, 1, LIMITS.concurrency)) {
    throw invalid(`concurrency must be an integer from 1 to ${LIMITS.concurrency}, got ${describeValue(concurrency)}`);
  }
  if (options.batch !== undefined && concurrency < options.batch.size) {
    throw invalid(`concurrency (${concurrency}) is below batch.size (${options.batch.size}): a batch could never fill`);
  }
  if (options.prefetch !== undefined && options.prefetch !== 'auto' && !isIntegerInRange(options.prefetch, 0, LIMITS.concurrency)) {
    throw invalid(`prefetch must be 'auto' or an integer from 0 to ${LIMITS.concurrency}, got ${describeValue(options.prefetch)}`);
  }
  if (options.maxAttempts !== undefined && !isIntegerInRange(options.maxAttempts, 1, LIMITS.maxAttempts)) {
    throw invalid(`maxAttempts must be an integer from 1 to ${LIMITS.maxAttempts}, got ${describeValue(options.maxAttempts)}`);
  }
  if (options.timeout !== undefined && !isTimerDuration(options.timeout)) {
    throw invalid(`timeout must be a positive number of ms, at most ${MAX_TIMER_MS}, got ${describeValue(options.timeout)}`);
  }
  if (options.backoff !== undefined) {
    const problem = backoffInputProblem(options.backoff);
    if (problem) throw invalid(`backoff ${problem}`);
  }
  for (const key of ['removeOnComplete', 'removeOnFail'] as const) {
    const problem = retentionProblem(options[key]);
    if (problem) throw invalid(`${key} ${problem}`);
  }
  if (options.deadLetter !== undefined && options.deadLetter !== null) {
    if (!isQueueName(options.deadLetter)) {
      throw invalid(`deadLetter must be a queue name (1 to 128 of A-Z a-z 0-9 _ . : -) or null, got ${describeValue(options.deadLetter)}`);
    }
    if (options.deadLetter === queue) throw invalid('deadLetter names the queue itself: its dead letters would fail into it again');
  }
  if (options.schema !== undefined) {
    const problem = payloadSchemaProblem(options.schema);
    if (problem) throw invalid(`schema ${problem}`);
  }
  const limitsProblem = queueLimitsProblem(options);
  if (limitsProblem) throw invalid(limitsProblem);
  if (options.schedules !== undefined) {
    if (!Array.isArray(options.schedules)) throw invalid('schedules must be an array of { name, cron | every, ... }');
    // Validated here, at discovery, so a bad schedule fails app.init() whether or not this process processes.
    const names = new Set<unknown>();
    for (const schedule of options.schedules as unknown[]) {
      if (typeof schedule !== 'object' || schedule === null) throw invalid('each schedule must be an object { name, cron | every, ... }');
      const { name: scheduleName, ...definition } = schedule as DeclaredSchedule;
      toScheduleRecord(queue, scheduleName, definition, Date.now());
      if (names.has(scheduleName)) throw new InvalidScheduleError(queue, scheduleName, 'the name is declared twice on this processor');
      names.add(scheduleName);
    }
  }
  return { ...options, concurrency, schema: options.schema === undefined ? undefined : toPayloadSchema(options.schema) };
}

/** What is wrong with a processor's `batch` option, or null. */
function batchOptionsProblem(batch: unknown): string | null {
  if (typeof batch !== 'object' || batch === null || Array.isArray(batch)) {
    return `must be an object { size, maxWaitMs? }, got ${describeValue(batch)}`;
  }
  for (const key of Object.keys(batch)) {
    if (!BATCH_KEYS.has(key)) return `has an unknown option "${key}"${didYouMean(key, BATCH_KEYS)}; known: size, maxWaitMs`;
  }
  const { size, maxWaitMs } = batch as { size?: unknown; maxWaitMs?: unknown };
  if (!isIntegerInRange(size, 1, MAX_BATCH_SIZE)) return `size must be an integer from 1 to ${MAX_BATCH_SIZE}, got ${describeValue(size)}`;
  if (
    maxWaitMs !== undefined &&
    !(typeof maxWaitMs === 'number' && Number.isFinite(maxWaitMs) && maxWaitMs >= 0 && maxWaitMs <= MAX_TIMER_MS)
  ) {
    return `maxWaitMs must be a number of ms from 0 to ${MAX_TIMER_MS}, got ${describeValue(maxWaitMs)}`;
  }
  return null;
}
