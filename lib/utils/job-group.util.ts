import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { LIMITS, describeValue, unstorableTextProblem } from './validation.util';

/** Why `group` is not a job group `JobOptions.group` accepts, or null. */
export function groupProblem(group: unknown): string | null {
  if (!(typeof group === 'string' && group.length > 0 && group.length <= LIMITS.groupLength)) {
    return `must be a non-empty string of at most ${LIMITS.groupLength} characters, got ${describeValue(group)}`;
  }
  return unstorableTextProblem(group);
}

/** Throws `InvalidArgumentError` for a group filter of `method` that names no possible group. */
export function assertGroupFilter(method: string, group: unknown): asserts group is string {
  const problem = groupProblem(group);
  if (problem) throw new InvalidArgumentError(method, 'group', problem);
}
