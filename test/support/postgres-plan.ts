/**
 * What the PostgreSQL plan tests share: a storage on a schema of its own, a one-connection DataSource beside it (so
 * session settings and prepared statements belong to the connection the test reads plans on), the jobs table with
 * autovacuum off (a test "without statistics" must not depend on when it wakes up), and the nodes of a JSON plan.
 */
import { DataSource } from 'typeorm';
import { createQueueStorage } from '../../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../../lib/runtime/resolve-module-options';
import { QueueStorage } from '../../lib/storage/queue-storage.interface';
import { JOBS_TABLE } from '../../lib/table-names.constants';
import { Backend, TestDatabase } from './backends';

/** A node of PostgreSQL's JSON plan (the fields the plan tests read). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Parent Relationship'?: string;
  'Total Cost'?: number;
  'Plan Rows'?: number;
  /** With EXPLAIN ANALYZE: rows per loop, and loops. */
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  Filter?: string;
  Plans?: PlanNode[];
}

/** A plan test's database: see the file's comment. */
export interface PlanDatabase {
  db: TestDatabase;
  storage: QueueStorage;
  source: DataSource;
  /** The schema's jobs table, qualified. */
  jobsTable: string;
  /** The schema's name. */
  schema: string;
  close(): Promise<void>;
}

/** Opens a plan test's database (migrated by the storage's boot). */
export async function openPlanDatabase(backend: Backend): Promise<PlanDatabase> {
  const db = backend.tempDatabase();
  const storage = createQueueStorage(resolveModuleOptions({ ...db.options }));
  await storage.initialize();
  const { url, schema } = db.options.postgres as { url: string; schema: string };
  const source = new DataSource({ type: 'postgres', url, poolSize: 1 });
  await source.initialize();
  const jobsTable = `"${schema}".${JOBS_TABLE}`;
  await source.query(`ALTER TABLE ${jobsTable} SET (autovacuum_enabled = false)`);
  return {
    db,
    storage,
    source,
    jobsTable,
    schema,
    close: async () => {
      await source.destroy();
      await storage.close();
      db.cleanup();
    },
  };
}

/** Every node of a plan, each with the node above it. */
export function planNodes(node: PlanNode, parent?: PlanNode, found: { node: PlanNode; parent?: PlanNode }[] = []) {
  found.push({ node, parent });
  for (const child of node.Plans ?? []) planNodes(child, node, found);
  return found;
}

/** How the server chooses between generic and custom plans for a prepared statement. */
export type PlanCacheMode = 'force_generic_plan' | 'force_custom_plan';

/** The JSON plan of `execute` (an `EXECUTE name(...)` of a statement prepared on the plan connection) under `mode`. */
export async function explainExecute(plans: PlanDatabase, mode: PlanCacheMode, execute: string): Promise<PlanNode> {
  await plans.source.query(`SET plan_cache_mode = ${mode}`);
  const [row] = (await plans.source.query(`EXPLAIN (FORMAT JSON) ${execute}`)) as { 'QUERY PLAN': { Plan: PlanNode }[] }[];
  return row['QUERY PLAN'][0].Plan;
}

/** The reads of the jobs table among `nodes` (the update itself aside), each checked to go through an index. */
export function jobReadsByIndex<T extends { node: PlanNode }>(nodes: T[]): T[] {
  const reads = nodes.filter(({ node }) => node['Relation Name'] === JOBS_TABLE && node['Node Type'] !== 'ModifyTable');
  expect(reads.length).toBeGreaterThan(0);
  for (const { node } of reads) expect(node['Node Type']).toMatch(/^(Index Scan|Index Only Scan|Bitmap Heap Scan)$/);
  return reads;
}

/** Every node of a plan with the nodes above it, nearest first. */
export function nodesWithAncestors(node: PlanNode, ancestors: PlanNode[] = [], found: { node: PlanNode; ancestors: PlanNode[] }[] = []) {
  found.push({ node, ancestors });
  for (const child of node.Plans ?? []) nodesWithAncestors(child, [node, ...ancestors], found);
  return found;
}
