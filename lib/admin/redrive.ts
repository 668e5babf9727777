import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { DeadLetterStorage } from '../storage/queue-storage.interface';
import { keysOf } from '../utils/option-keys.util';
import { assertQueueName } from '../utils/queue-name.util';
import { assertAdminOptions } from '../utils/assert-options.util';
import { describeValue, isIntegerInRange } from '../utils/validation.util';

/** Options of `QueueAdmin.redrive`. */
export interface RedriveOptions {
  /** Most dead letters moved, oldest first: 1 to 1,000,000. Default all (in rounds of 10,000). */
  limit?: number;
}

/** The keys of `RedriveOptions`: any other is refused. */
const REDRIVE_OPTION_KEYS = keysOf<RedriveOptions>()('limit');

/** A dead-letter queue as `QueueAdmin.listDeadLetterQueues` shows it. */
export interface DeadLetterQueueInfo {
  /** The dead-letter queue. */
  queue: string;
  /** The queues whose processors name it (`deadLetter`). */
  sources: string[];
  /** Dead letters waiting in it (pending or failed): what `redrive` would move. */
  count: number;
}

/** Dead letters one statement moves: a bounded write, so a huge dead-letter queue does not hold the lock for long. */
const REDRIVE_ROUND = 10_000;
const MAX_LIMIT = 1_000_000;

/** Checks `redrive`'s arguments before anything is read or written; the limit, if any. */
export function assertRedriveArguments(deadLetterQueue: string, options: RedriveOptions | undefined): number | undefined {
  assertQueueName(deadLetterQueue);
  assertAdminOptions('redrive', options, REDRIVE_OPTION_KEYS);
  const limit = options?.limit;
  if (limit !== undefined && !isIntegerInRange(limit, 1, MAX_LIMIT)) {
    throw new InvalidArgumentError('redrive', 'limit', `must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(limit)}`);
  }
  return limit;
}

/**
 * Moves dead letters of `deadLetterQueue` back into the queues they came from; how many moved. Each round is one
 * atomic statement (a dead letter leaves exactly as its fresh job arrives); without a limit, rounds run until one
 * moves fewer than it could. Its arguments were checked by `assertRedriveArguments`, once, before the queue was looked up.
 */
export async function redriveDeadLetters(
  storage: DeadLetterStorage,
  deadLetterQueue: string,
  limit: number | undefined,
  now: () => number,
): Promise<number> {
  let moved = 0;
  for (;;) {
    const want = Math.min(REDRIVE_ROUND, (limit ?? Infinity) - moved);
    if (want <= 0) return moved;
    const round = await storage.redrive(deadLetterQueue, want, now());
    moved += round;
    if (round < want) return moved;
  }
}
