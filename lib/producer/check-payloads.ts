import { FlowJob } from '../interfaces/flow-job.interface';
import { BulkJobItem } from '../interfaces/job-options.interface';
import { PayloadSchema, PayloadSchemaResult } from '../interfaces/payload-schema.interface';
import { PayloadCheck, checkedPayload, isPendingCheck, runPayloadSchema } from '../utils/payload-schema.util';
import { MAX_FLOW_JOBS } from './prepare-flow';
import { MAX_GRAPH_JOBS } from './prepare-graph';

/** One value a schema checks, and what the error calls it (`items[2].data`). */
interface PendingCheck {
  queue: string;
  root: string;
  check: PayloadCheck;
}

/**
 * The schema's output for each item of an `addBulk`, in order; rejects with `InvalidJobDataError` for the first item
 * (in order) the schema refuses. Items that are not `{ data }` objects are left to the bulk's own checks (undefined).
 */
export async function checkBulkData(schema: PayloadSchema, queue: string, items: BulkJobItem<unknown>[]): Promise<unknown[]> {
  const checks = items.map((item, index): PendingCheck | undefined =>
    typeof item === 'object' && item !== null && 'data' in item
      ? { queue, root: `items[${index}].data`, check: runPayloadSchema(schema, item.data) }
      : undefined,
  );
  return settle(checks);
}

/**
 * The schema's output for each job of a flow whose queue declares one, by the flow job object; null when no job of
 * the flow has a schema. Walks the tree as `prepareFlow` does (and names the jobs as it does), leaving every
 * malformed part to it.
 */
export async function checkFlowData(
  flow: FlowJob<unknown>,
  schemaFor: (queue: string) => PayloadSchema | undefined,
): Promise<Map<object, unknown> | null> {
  const jobs: object[] = [];
  const checks: PendingCheck[] = [];
  const stack: { node: unknown; path: string }[] = [{ node: flow, path: 'flow' }];
  let seen = 0;
  while (stack.length > 0 && seen++ <= MAX_FLOW_JOBS) {
    const { node, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    const job = node as Partial<FlowJob<unknown>>;
    const schema = typeof job.queue === 'string' ? schemaFor(job.queue) : undefined;
    if (schema !== undefined && 'data' in job) {
      jobs.push(job);
      checks.push({ queue: job.queue!, root: `${path}.data`, check: runPayloadSchema(schema, job.data) });
    }
    const children = job.children;
    if (Array.isArray(children))
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], path: `${path}.children[${i}]` });
  }
  if (jobs.length === 0) return null;
  const values = await settle(checks);
  return new Map(jobs.map((job, index) => [job, values[index]]));
}

/**
 * The schema's output for each job of an `addGraph` whose queue declares one, by input position; null when none has
 * a schema. Malformed jobs are left to `prepareGraph`.
 */
export async function checkGraphData(
  jobs: unknown,
  schemaFor: (queue: string) => PayloadSchema | undefined,
): Promise<Map<number, unknown> | null> {
  // A list over the limit is refused by the graph's own checks: none of its jobs is worth a schema's time first.
  if (!Array.isArray(jobs) || jobs.length > MAX_GRAPH_JOBS) return null;
  const positions: number[] = [];
  const checks: PendingCheck[] = [];
  (jobs as unknown[]).forEach((job, index) => {
    if (typeof job !== 'object' || job === null || !('data' in job)) return;
    const { queue, data } = job as { queue?: unknown; data: unknown };
    const schema = typeof queue === 'string' ? schemaFor(queue) : undefined;
    if (schema === undefined) return;
    positions.push(index);
    checks.push({ queue: queue as string, root: `jobs[${index}].data`, check: runPayloadSchema(schema, data) });
  });
  if (positions.length === 0) return null;
  const values = await settle(checks);
  return new Map(positions.map((position, index) => [position, values[index]]));
}

/** Waits for the asynchronous checks, then reads every result in order: the first refusal is the one thrown. */
async function settle(checks: (PendingCheck | undefined)[]): Promise<unknown[]> {
  const results = checks.some((entry) => entry !== undefined && isPendingCheck(entry.check))
    ? await Promise.all(checks.map((entry) => entry?.check))
    : checks.map((entry) => entry?.check);
  return checks.map((entry, index) =>
    entry === undefined ? undefined : checkedPayload(entry.queue, results[index] as PayloadSchemaResult<unknown>, entry.root),
  );
}
