/**
 * The plain PostgreSQL claim is a prepared statement that the server plans once: after its five first calls it keeps a
 * generic plan, as long as that plan is priced no higher than the custom ones. A claim whose custom plans saw how many
 * queues it asked for priced them below the generic plan (which believes 10), so the server planned it again at every
 * call for the same plan (0.2-0.3 ms of its CPU per claim: bench/pg-claim-plan.js measures it). Both
 * kinds of plan must also keep the claim's shape: one index walk per requested queue, in claim order, limited and
 * locked, and the update by primary key. The plans are read with EXPLAIN of EXECUTE, with and without statistics.
 */
import { StatementOptions } from '../lib/storage/shared/statement-runner';
import { claimJobs } from '../lib/storage/postgres/sql/claim.sql';
import { postgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { Backend, describePostgres } from './support/backends';
import {
  PlanCacheMode,
  PlanDatabase,
  PlanNode,
  explainExecute,
  jobReadsByIndex,
  nodesWithAncestors,
  openPlanDatabase,
} from './support/postgres-plan';
import { newJob } from './support/storage-contract';

const WORKER = 'plan-worker';

describePostgres('plain claim plan', (backend: Backend) => {
  let plans: PlanDatabase;
  let claim: { sql: string; options?: StatementOptions };

  beforeAll(async () => {
    plans = await openPlanDatabase(backend);
    const now = Date.now() - 1000;
    for (const queue of ['a', 'b', 'c', 'd']) {
      await plans.storage.enqueue(
        queue,
        Array.from({ length: 5000 }, () => newJob({ runAt: now })),
        now,
      );
    }
    // The statement exactly as the library sends it, caught at its runner.
    const runner = {
      all: async (sql: string, _params: unknown[], options?: StatementOptions) => {
        claim = { sql, options };
        return [];
      },
      run: async () => 0,
    };
    await claimJobs({ runner, tables: postgresTables(plans.schema) }, [{ queue: 'a', limit: 50 }], WORKER, now, 30_000);
  }, 120_000);

  afterAll(async () => {
    await plans?.close();
  });

  /** The arguments of one EXECUTE: `limit` jobs of each of `queues`, now. */
  function args(queues: string[], limit: number): string {
    const now = Date.now();
    return `'${WORKER}', ${now + 30_000}, ${now}, '{${queues.join(',')}}'::text[], '{${queues.map(() => limit).join(',')}}'::int[]`;
  }

  /** Prepares the claim afresh on the test's one connection, with the server's default plan choice. */
  async function prepare(): Promise<void> {
    await plans.source.query('DEALLOCATE ALL');
    await plans.source.query('SET plan_cache_mode = auto');
    await plans.source.query(`PREPARE claim(text, bigint, bigint, text[], int[]) AS ${claim.sql}`);
  }

  /** How many generic and custom plans the server made for the prepared claim so far. */
  async function planCounts(): Promise<{ generic: number; custom: number }> {
    const [row] = (await plans.source.query(
      `SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE name = 'claim'`,
    )) as { generic: number; custom: number }[];
    return row;
  }

  async function plan(mode: PlanCacheMode): Promise<PlanNode> {
    await prepare();
    return explainExecute(plans, mode, `EXECUTE claim(${args(['a', 'b', 'c', 'd'], 50)})`);
  }

  function expectTheClaimsShape(root: PlanNode): void {
    const jobReads = jobReadsByIndex(nodesWithAncestors(root));
    // The walk: the claim index, in its order, limited and locked, once per request (inside the nested loop).
    const walks = jobReads.filter(({ node }) => node['Index Name'] === `${JOBS_TABLE}_claim`);
    expect(walks).toHaveLength(1);
    const above = walks[0].ancestors.map((node) => node['Node Type']);
    expect(above.slice(0, 2)).toEqual(['LockRows', 'Limit']);
    expect(above).toContain('Nested Loop');
    // The update finds the picked rows by primary key.
    expect(jobReads.some(({ node }) => node['Index Name'] === `${JOBS_TABLE}_pkey`)).toBe(true);
  }

  it('is sent prepared (named), so the server may plan it once', () => {
    expect(claim.options?.reused).toBe(true);
  });

  it.each([
    ['without statistics', false],
    ['with statistics', true],
  ])('%s, the server keeps a generic plan after the five first calls', async (_label, analyze) => {
    if (analyze) await plans.source.query(`ANALYZE ${plans.jobsTable}`);
    await prepare();
    // Claims of nothing (a limit of 0): the plan is chosen at each call all the same.
    for (let call = 0; call < 8; call++) await plans.source.query(`EXECUTE claim(${args(['a', 'b', 'c', 'd'], 0)})`);
    expect(await planCounts()).toEqual({ custom: 5, generic: 3 });
  });

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'without statistics, %s: one limited, locked walk of the claim index per queue, the update by primary key',
    async (mode) => {
      expectTheClaimsShape(await plan(mode));
    },
  );

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'with statistics, %s: one limited, locked walk of the claim index per queue, the update by primary key',
    async (mode) => {
      await plans.source.query(`ANALYZE ${plans.jobsTable}`);
      expectTheClaimsShape(await plan(mode));
    },
  );

  it('claims what it is asked for, each job once', async () => {
    const claimed = await plans.storage.claim(
      [
        { queue: 'a', limit: 3 },
        { queue: 'b', limit: 2 },
      ],
      'claim-worker',
      Date.now(),
      30_000,
    );
    expect(claimed.map((job) => job.queue).sort()).toEqual(['a', 'a', 'a', 'b', 'b']);
    const again = await plans.storage.claim([{ queue: 'a', limit: 3 }], 'claim-worker', Date.now(), 30_000);
    expect(new Set([...claimed, ...again].map((job) => job.id)).size).toBe(8);
  });
});
