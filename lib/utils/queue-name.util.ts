import { InvalidQueueNameError } from '../errors/invalid-queue-name.error';

const QUEUE_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

/** Throws `InvalidQueueNameError` unless `queue` is a valid queue name. */
export function assertQueueName(queue: unknown): asserts queue is string {
  if (typeof queue !== 'string' || !QUEUE_NAME.test(queue)) throw new InvalidQueueNameError(queue);
}

/** Whether `queue` is a valid queue name (what `assertQueueName` accepts). */
export function isQueueName(queue: unknown): queue is string {
  return typeof queue === 'string' && QUEUE_NAME.test(queue);
}
