import { QueueLimits, RateLimiterOptions } from '../interfaces/queue-limits.interface';
import { LIMITS, describeValue, isIntegerInRange } from './validation.util';
import { didYouMean } from './closest-name.util';

/** Most jobs a limiter window may allow, and most running jobs a global or group limit may allow: a 32-bit column on PostgreSQL. */
const MAX_LIMIT = 2_147_483_647;

/** Why `limits` (a processor's options or one entry of the module's `queueLimits`) is invalid, or null. */
export function queueLimitsProblem(limits: QueueLimits): string | null {
  const { limiter, globalConcurrency, groupConcurrency, groupLimiter } = limits;
  const rateProblem = rateLimiterProblem('limiter', limiter) ?? rateLimiterProblem('groupLimiter', groupLimiter);
  if (rateProblem) return rateProblem;
  if (globalConcurrency !== undefined && !isIntegerInRange(globalConcurrency, 1, MAX_LIMIT)) {
    return `globalConcurrency must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(globalConcurrency)}`;
  }
  if (groupConcurrency !== undefined && !isIntegerInRange(groupConcurrency, 1, MAX_LIMIT)) {
    return `groupConcurrency must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(groupConcurrency)}`;
  }
  return null;
}

/** Why the rate limiter option `name` (`limiter` or `groupLimiter`) is invalid, or null (also when not given). */
function rateLimiterProblem(name: string, limiter: RateLimiterOptions | undefined): string | null {
  if (limiter === undefined) return null;
  if (typeof limiter !== 'object' || limiter === null || Array.isArray(limiter)) {
    return `${name} must be { max, duration }, got ${describeValue(limiter)}`;
  }
  for (const key of Object.keys(limiter)) {
    if (key !== 'max' && key !== 'duration') {
      return `${name} has an unknown option "${key}"${didYouMean(key, ['max', 'duration'])}; known: max, duration`;
    }
  }
  if (!isIntegerInRange(limiter.max, 1, MAX_LIMIT)) {
    return `${name}.max must be an integer from 1 to ${MAX_LIMIT}, got ${describeValue(limiter.max)}`;
  }
  if (!isIntegerInRange(limiter.duration, 1, LIMITS.durationMs)) {
    return `${name}.duration must be an integer number of ms from 1 to ${LIMITS.durationMs}, got ${describeValue(limiter.duration)}`;
  }
  return null;
}
