import { InvalidArgumentError } from './invalid-argument.error';
import { QueueError } from './queue.error';

/** Longest snooze: 100 years, the bound of every duration option (LIMITS.durationMs). */
const MAX_SNOOZE_MS = 100 * 365.25 * 24 * 3_600_000;

/**
 * Throw it from `process()` for "not yet, try again in `delay` ms": the attempt ends without counting against
 * `maxAttempts`, the job is pending again and due in `delay` ms, a `snoozed` event says so, and the job's log gets a
 * line. Like Oban's `{:snooze, s}` or River's `JobSnooze`. Past the module's `maxSnoozes` the job fails with
 * `SnoozeLimitError` instead. A negative, NaN or infinite delay throws InvalidArgumentError here.
 */
export class SnoozeError extends QueueError {
  /** How long the job sleeps, in ms (rounded to whole ms). */
  readonly delay: number;

  constructor(delay: number, message?: string) {
    if (typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0 || delay > MAX_SNOOZE_MS) {
      throw new InvalidArgumentError('new SnoozeError', 'delay', `must be a number of ms from 0 to 100 years, got ${String(delay)}`, '');
    }
    const rounded = Math.round(delay);
    super(message ?? `Snoozed for ${rounded} ms`);
    this.delay = rounded;
  }
}
