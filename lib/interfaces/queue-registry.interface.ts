/**
 * Optional type-level registry of queues, filled by declaration merging (as graphile-worker's `Tasks`): declare
 * each queue's data (and result) once, and `QueueProducer.add('email', data)` is checked against it by queue name.
 * Queues left out, and apps that declare nothing, stay untyped (`unknown`, or the type argument given).
 *
 * ```ts
 * declare module 'nestjs-sqlite-queue' {
 *   interface QueueRegistry {
 *     email: { data: SendEmail; result: string };
 *   }
 * }
 * ```
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface QueueRegistry {}

/** The queue names declared in `QueueRegistry`. */
export type RegisteredQueueName = keyof QueueRegistry & string;

/** The data type `QueueRegistry` declares for queue `Q`; `TFallback` for a queue it does not declare. */
export type QueueDataOf<Q extends string, TFallback = unknown> = Q extends keyof QueueRegistry
  ? QueueRegistry[Q] extends { data: infer TData }
    ? TData
    : unknown
  : TFallback;

/** The result type `QueueRegistry` declares for queue `Q`; `TFallback` when it declares none. */
export type QueueResultOf<Q extends string, TFallback = unknown> = Q extends keyof QueueRegistry
  ? QueueRegistry[Q] extends { result: infer TResult }
    ? TResult
    : TFallback
  : TFallback;
