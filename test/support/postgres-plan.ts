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
