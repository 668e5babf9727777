import { QueueLimits } from '../interfaces/queue-limits.interface';
import { LIMITS, describeValue, isIntegerInRange } from './validation.util';

/** Most jobs a limiter window may allow, and most running jobs a global or group limit may allow: a 32-bit column on PostgreSQL. */
const MAX_LIMIT = 2_147_483_647;

/** Why `limits` (a processor's options or one entry of the module's `queueLimits`) is invalid, or null. */
export function queueLimitsProblem(limits: QueueLimits): string | null {
  const { limiter, globalConcurrency, groupConcurrency } = limits;
  if (limiter !== undefined) {
    if (typeof limiter !== 'object' || limiter === null) return `limiter must be { max, duration }, got ${describeValue(limiter)}`;
    for (const key of Object.keys(limiter)) {
      if (key !== 'max' && key !== 'duration') return `limiter has an unknown option "${key}" (known: max, duration)`;
    }
    if (!isIntegerInRange(limiter.max, 1, MAX_LIMIT)) {
      return `limiter.max must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(limiter.max)}`;
    }
    if (!isIntegerInRange(limiter.duration, 1, LIMITS.durationMs)) {
      return `limiter.duration must be an integer number of ms from 1 to ${LIMITS.durationMs}, got ${describeValue(limiter.duration)}`;
    }
  }
  if (globalConcurrency !== undefined && !isIntegerInRange(globalConcurrency, 1, MAX_LIMIT)) {
    return `globalConcurrency must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(globalConcurrency)}`;
  }
  if (groupConcurrency !== undefined && !isIntegerInRange(groupConcurrency, 1, MAX_LIMIT)) {
    return `groupConcurrency must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(groupConcurrency)}`;
  }
  return null;
}
