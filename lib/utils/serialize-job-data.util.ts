import { InvalidJobDataError } from '../errors/invalid-job-data.error';
import { findJsonProblem } from './json-value.util';

/**
 * Serialises job data to JSON, refusing anything that would not come back identical: the handler must
 * see exactly what the producer enqueued, not a silently truncated copy. `root` names the value in errors.
 */
export function serializeJobData(queue: string, data: unknown, root = 'data'): string {
  const problem = findJsonProblem(data, root);
  if (problem) throw new InvalidJobDataError(queue, problem.path, problem.reason);
  return JSON.stringify(data);
}
