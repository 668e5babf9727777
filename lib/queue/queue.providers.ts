import { Provider } from '@nestjs/common';
import { QueueAdmin } from '../admin/queue-admin.service';
import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error';
import { QueueRuntime } from '../runtime/queue-runtime';
import { QueueError } from '../errors/queue.error';
import { RegisterQueueAsyncOptions, RegisterQueueOptions } from '../interfaces/register-queue-options.interface';
import { prepareJob } from '../producer/prepare-job';
import { QueueProducer } from '../producer/queue-producer.service';
import { assertQueueName } from '../utils/queue-name.util';
import { describeValue } from '../utils/validation.util';
import { payloadSchemaProblem, toPayloadSchema } from '../utils/payload-schema.util';
import { getQueueToken } from '../utils/get-queue-token.util';
import { keysOf, unknownOptionProblem } from '../utils/option-keys.util';
import { Queue } from './queue';

/** The keys of `registerQueue({ ... })`: any other is refused, with the one it resembles. */
const REGISTER_QUEUE_KEYS = keysOf<RegisterQueueOptions>()('name', 'defaultJobOptions', 'schema');

/** Options a handle cannot default: a shared key would make every job a duplicate, a fixed `runAt` is one moment. */
const NOT_DEFAULTABLE = ['name', 'key', 'runAt'];

/**
 * Validates a registration and builds its handle. Runs when Nest instantiates the provider, so a bad registration
 * fails `compile()` / `app.init()` with `InvalidQueueNameError` or `InvalidModuleOptionsError`.
 */
export function createQueueHandle(options: RegisterQueueOptions, producer: QueueProducer, admin: QueueAdmin, runtime: QueueRuntime): Queue {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidModuleOptionsError(
      'registerQueue',
      `must be an object { name, defaultJobOptions?, schema? }, got ${describeValue(options)}`,
    );
  }
  assertQueueName(options.name);
  const option = `registerQueue(${options.name}).defaultJobOptions`;
  const stray = unknownOptionProblem(options, REGISTER_QUEUE_KEYS);
  if (stray !== null) throw new InvalidModuleOptionsError(`registerQueue(${options.name}).${stray.key}`, stray.reason);
  const defaults = options.defaultJobOptions ?? {};
  if (typeof defaults !== 'object' || defaults === null) throw new InvalidModuleOptionsError(option, 'must be an object of job options');
  const refused = Object.keys(defaults).find((key) => NOT_DEFAULTABLE.includes(key));
  if (refused !== undefined) throw new InvalidModuleOptionsError(`${option}.${refused}`, 'cannot be a default; give it per job');
  try {
    // The same checks as every add(), once, at boot.
    prepareJob(options.name, null, defaults, { maxAttempts: 1 }, Date.now());
  } catch (error) {
    if (error instanceof QueueError) throw new InvalidModuleOptionsError(option, error.message);
    throw error;
  }
  if (options.schema !== undefined) {
    const schemaOption = `registerQueue(${options.name}).schema`;
    const problem = payloadSchemaProblem(options.schema);
    if (problem) throw new InvalidModuleOptionsError(schemaOption, problem);
    const schema = toPayloadSchema(options.schema);
    runtime.declareSchema(options.name, schema, (reason) => new InvalidModuleOptionsError(schemaOption, reason));
  }
  // A declared queue is known before its first job: it may be paused or cleaned at once.
  runtime.declareQueue(options.name);
  return new Queue(options.name, producer, admin, { ...defaults });
}

/** The providers of `registerQueue(...)`: one handle per queue, under `getQueueToken(name)`. */
export function createQueueProviders(registrations: RegisterQueueOptions[]): Provider[] {
  return registrations.map((registration) => ({
    provide: getQueueToken(registration?.name),
    useFactory: (producer: QueueProducer, admin: QueueAdmin, runtime: QueueRuntime) =>
      createQueueHandle(registration, producer, admin, runtime),
    inject: [QueueProducer, QueueAdmin, QueueRuntime],
  }));
}

/** The providers of `registerQueueAsync(...)`: the factory's settings, then the handle. */
export function createAsyncQueueProviders(registrations: RegisterQueueAsyncOptions[]): Provider[] {
  return registrations.map((registration) => {
    const { name, useFactory, inject = [] } = registration;
    if (typeof useFactory !== 'function')
      throw new InvalidModuleOptionsError(`registerQueueAsync(${name}).useFactory`, 'must be a function');
    return {
      provide: getQueueToken(name),
      useFactory: async (producer: QueueProducer, admin: QueueAdmin, runtime: QueueRuntime, ...args: unknown[]) =>
        createQueueHandle({ ...(await useFactory(...args)), name }, producer, admin, runtime),
      inject: [QueueProducer, QueueAdmin, QueueRuntime, ...inject],
    };
  });
}
