import { RateLimitError } from './rate-limit.error';

/**
 * Throw it from a handler when the remote service said "wait" for this job's group alone (a tenant's HTTP 429): the
 * job goes back to pending without spending an attempt, and its group (`job.group`) stops being claimed, by every
 * process, for `delay` ms (bounded as `RateLimitError`'s), while the queue's other groups go on. A job without a group
 * has no group to pause: its throw pauses the whole queue, as `RateLimitError` does (it is one).
 */
export class GroupRateLimitError extends RateLimitError {
  constructor(delay: number, message?: string) {
    super(delay, message);
    if (message === undefined) this.message = `Group rate limited: the job's group pauses for ${this.delay} ms`;
  }
}
