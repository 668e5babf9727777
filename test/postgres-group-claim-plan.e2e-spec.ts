/**
 * The PostgreSQL grouped claim reads each group's jobs in index order, with and without statistics: every read of the
 * jobs table that names a group is a LIMIT over `_group_claim` read in order, never a sort of a group's pending rows.
 * On a table without statistics the planner once read `_groups` and sorted a group's rows for each group of each
 * claim (10 groups of 10,000 jobs: 447 ms a claim, bench/RESULTS.md); this fails if a probe of that shape returns.
 * The plan is read with EXPLAIN (not run) of the statement with a plain SELECT in place of its UPDATE. Why the
 * probes are shaped so: `headOf` in lib/storage/postgres/sql/group-claim.sql.ts.
 */
import { groupedClaimSql } from '../lib/storage/postgres/sql/group-claim.sql';
import { postgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { Backend, describePostgres } from './support/backends';
import { PlanDatabase, PlanNode, openPlanDatabase } from './support/postgres-plan';
import { newJob } from './support/storage-contract';

/** Every read of the jobs table whose condition names `job_group`, with the node above it. */
function groupReads(node: PlanNode, parent: PlanNode | undefined, found: { node: PlanNode; parent?: PlanNode }[] = []) {
  const condition = `${node['Index Cond'] ?? ''} ${node.Filter ?? ''}`;
  if (node['Relation Name'] === JOBS_TABLE && condition.includes('job_group')) found.push({ node, parent });
  for (const child of node.Plans ?? []) groupReads(child, node, found);
  return found;
}

describePostgres('grouped claim plan', (backend: Backend) => {
  let plans: PlanDatabase;
  let storage: QueueStorage;

  beforeAll(async () => {
    plans = await openPlanDatabase(backend);
    ({ storage } = plans);
    // 10 groups of 2,000 due jobs, and a group whose first job is delayed (the probe for its first due job).
    const now = Date.now() - 1000;
    for (let start = 0; start < 20_000; start += 5000) {
      await storage.enqueue(
        'q',
        Array.from({ length: 5000 }, (_, i) => newJob({ runAt: now, group: `g${(start + i) % 10}` })),
        now,
      );
    }
    await storage.enqueue('q', [newJob({ group: 'g5', priority: 9, runAt: now + 3_600_000 })], now);
  }, 120_000);

  afterAll(async () => {
    await plans?.close();
  });

  function jobsTable(): string {
    return plans.jobsTable;
  }

  /** pg_class.reltuples: -1 until the table is first analyzed or vacuumed. */
  async function reltuples(): Promise<number> {
    const [row] = (await plans.source.query(`SELECT reltuples FROM pg_class WHERE oid = $1::regclass`, [jobsTable()])) as {
      reltuples: number;
    }[];
    return Number(row.reltuples);
  }

  async function plan(): Promise<PlanNode> {
    const { schema } = plans;
    // The UPDATE's parameters ($1 worker, $2 lease) stay typed, so the SELECT plans like the statement it stands for.
    const sql = groupedClaimSql(postgresTables(schema))('SELECT id FROM picked WHERE $1::text IS NOT NULL AND $2::bigint IS NOT NULL');
    const now = Date.now();
    // With a group limiter ($11): its windows' read and count are in the plan too.
    const params = [['q'], [10], [false], [null], [true], [1_000_000], [''], [true]];
    const [row] = (await plans.source.query(`EXPLAIN (FORMAT JSON) ${sql}`, ['w', now + 60_000, now, ...params])) as {
      'QUERY PLAN': { Plan: PlanNode }[];
    }[];
    return row['QUERY PLAN'][0].Plan;
  }

  function expectIndexOrderedGroupReads(root: PlanNode): void {
    const reads = groupReads(root, undefined);
    expect(reads.length).toBeGreaterThan(0);
    for (const { node, parent } of reads) {
      expect({ index: node['Index Name'], above: parent?.['Node Type'] }).toEqual({ index: `${JOBS_TABLE}_group_claim`, above: 'Limit' });
    }
  }

  it('without statistics (a table as filled, before autovacuum analyzes it)', async () => {
    expect(await reltuples()).toBe(-1);
    expectIndexOrderedGroupReads(await plan());
  });

  it('with statistics (after ANALYZE)', async () => {
    await plans.source.query(`ANALYZE ${jobsTable()}`);
    expect(await reltuples()).toBeGreaterThanOrEqual(20_000);
    expectIndexOrderedGroupReads(await plan());
  });
});
