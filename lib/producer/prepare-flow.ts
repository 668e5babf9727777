import { InvalidJobOptionsError } from '../errors/invalid-job-options.error';
import { FlowJob } from '../interfaces/flow-job.interface';
import { NewFlowNode } from '../storage/queue-storage.interface';
import { FLOW_WAIT_OFFSET } from '../storage/shared/flow-wait';
import { FLOW_JOB_FIELDS, strayFieldProblem } from '../utils/option-keys.util';
import { assertQueueName } from '../utils/queue-name.util';
import { describeValue } from '../utils/validation.util';
import { JobDefaults, prepareJob } from './prepare-job';

/** Most jobs one flow may hold: a bound on one statement's size (and on a tree that refers to itself). */
export const MAX_FLOW_JOBS = 10_000;

/**
 * Validates a whole flow and flattens it, parents before their children, into the nodes one insert writes. Throws a
 * typed error naming the offending node (`flow.children[2].options.delay`) before anything is written. `checked` holds
 * the data of the jobs whose queue has a schema, as the schema output it (see `checkFlowData`).
 */
export function prepareFlow(
  flow: FlowJob,
  defaultsFor: (queue: string) => JobDefaults,
  now: number,
  checked: Map<object, unknown> | null = null,
): NewFlowNode[] {
  const nodes: NewFlowNode[] = [];
  const stack: { node: unknown; parentIndex: number; path: string }[] = [{ node: flow, parentIndex: -1, path: 'flow' }];
  while (stack.length > 0) {
    const { node, parentIndex, path } = stack.pop()!;
    if (nodes.length >= MAX_FLOW_JOBS) {
      throw new InvalidJobOptionsError('(flow)', 'flow', `has more than ${MAX_FLOW_JOBS} jobs (or a child that contains itself)`);
    }
    if (typeof node !== 'object' || node === null || Array.isArray(node)) {
      throw new InvalidJobOptionsError(
        '(flow)',
        path,
        `must be an object { queue, data, options?, children?, onChildFailure? }, got ${describeValue(node)}`,
      );
    }
    const job = node as Partial<FlowJob> & Record<string, unknown>;
    const stray = strayFieldProblem(job, FLOW_JOB_FIELDS, 'a field of a flow job');
    if (stray) throw new InvalidJobOptionsError('(flow)', `${path}.${stray.key}`, stray.reason);
    assertQueueName(job.queue);
    const queue = job.queue as string;
    const invalid = (field: string, reason: string) => new InvalidJobOptionsError(queue, `${path}.${field}`, reason);
    if (!('data' in job)) throw invalid('data', 'is missing (use null for no payload)');
    const { children = [], onChildFailure } = job;
    if (!Array.isArray(children)) throw invalid('children', `must be an array of flow jobs, got ${describeValue(children)}`);
    if (onChildFailure !== undefined && onChildFailure !== 'fail' && onChildFailure !== 'continue') {
      throw invalid('onChildFailure', `must be 'fail' or 'continue', got ${describeValue(onChildFailure)}`);
    }
    const options = job.options as Record<string, unknown> | undefined;
    if (options && typeof options === 'object') {
      // A key could make one node's insert a no-op and leave its children without their parent; the manager is the
      // whole flow's (addFlow's second argument).
      if ('key' in options) throw invalid('options.key', 'is not supported in a flow');
      // A flow node waits for its children, not for other jobs: the two waits share one pushed run time.
      if ('dependsOn' in options || 'onDependencyFailure' in options) {
        throw invalid('dependsOn' in options ? 'options.dependsOn' : 'options.onDependencyFailure', 'is not supported in a flow');
      }
      if ('manager' in options) throw invalid('options.manager', 'is given for the whole flow: addFlow(flow, { manager })');
      // Deleting a completed child at once would take away the result its parent reads when it runs.
      if (parentIndex >= 0 && options.removeOnComplete === true) {
        throw invalid('options.removeOnComplete', "is not supported on a flow's child: its parent reads its result");
      }
    }
    const data = checked !== null && checked.has(job) ? checked.get(job) : job.data;
    const record = prepareJob(queue, data, job.options, defaultsFor(queue), now, `${path}.`);
    const hasChildren = children.length > 0;
    if (hasChildren) record.runAt += FLOW_WAIT_OFFSET;
    const index = nodes.length;
    nodes.push({ queue, job: record, parentIndex, onChildFailure: hasChildren ? (onChildFailure ?? 'fail') : null });
    // Reversed onto the stack: children come out, and are numbered, in the order given.
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], parentIndex: index, path: `${path}.children[${i}]` });
  }
  return nodes;
}
