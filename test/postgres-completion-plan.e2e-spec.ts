/**
 * The PostgreSQL completion batch is a prepared statement, so the server may run it on a generic plan (after five
 * calls, or always under `plan_cache_mode = force_generic_plan`) or on custom plans: both must read the jobs table
 * through an index and walk the batch once. The completion as it was before (an `unnest` join) had a generic plan that
 * believed the batch 10 rows long and rescanned it once per running row: 200 completions took 5.6 ms against 1.7
 * (bench/pg-completion-plan.js). The plans are read with EXPLAIN of EXECUTE (not run), with and without statistics.
 */
import { StatementOptions } from '../lib/storage/shared/statement-runner';
import { completeJobs } from '../lib/storage/postgres/sql/outcomes.sql';
import { postgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { QueueStorage } from '../lib/storage/queue-storage.interface';
import { Backend, describePostgres } from './support/backends';
import {
  PlanCacheMode,
  PlanDatabase,
  PlanNode,
  explainExecute,
  jobReadsByIndex,
  openPlanDatabase,
  planNodes,
} from './support/postgres-plan';
import { newJob } from './support/storage-contract';

const BATCH = 200;
const WORKER = 'plan-worker';

describePostgres('completion batch plan', (backend: Backend) => {
  let plans: PlanDatabase;
  let storage: QueueStorage;
  let completion: { sql: string; options?: StatementOptions };
  let batch: { id: string; attempts: number }[];

  beforeAll(async () => {
    plans = await openPlanDatabase(backend);
    ({ storage } = plans);
    const now = Date.now() - 1000;
    for (let start = 0; start < 20_000; start += 5000) {
      await storage.enqueue(
        'q',
        Array.from({ length: 5000 }, () => newJob({ runAt: now })),
        now,
      );
    }
    // TypeORM answers an UPDATE ... RETURNING on PostgreSQL with [rows, count].
    [batch] = (await plans.source.query(
      `UPDATE ${jobsTable()} SET status = 'running', attempts = attempts + 1, locked_by = $1, lease_until = $2
       WHERE id IN (SELECT id FROM ${jobsTable()} ORDER BY id LIMIT ${BATCH}) RETURNING id, attempts`,
      [WORKER, now + 60_000],
    )) as [{ id: string; attempts: number }[], number];
    // The statement exactly as the library sends it, caught at its runner.
    const runner = {
      all: async (sql: string, _params: unknown[], options?: StatementOptions) => {
        completion = { sql, options };
        return [];
      },
      run: async () => 0,
    };
    await completeJobs({ runner, tables: postgresTables(plans.schema) }, [{ ref: { id: '1', attempt: 1 }, result: null }], WORKER, now);
    await plans.source.query(`PREPARE completion(bigint, bigint[], int[], text[], text, bigint[], int[]) AS ${completion.sql}`);
  }, 120_000);

  afterAll(async () => {
    await plans?.close();
  });

  function jobsTable(): string {
    return plans.jobsTable;
  }

  async function plan(mode: PlanCacheMode): Promise<PlanNode> {
    const ids = `'{${batch.map((row) => row.id).join(',')}}'::bigint[]`;
    const attempts = `'{${batch.map((row) => row.attempts).join(',')}}'::int[]`;
    const results = `'{${batch.map(() => 'null').join(',')}}'::text[]`;
    // Each job's start, as the worker's completions carry it (the claim writes none).
    const starts = `'{${batch.map(() => Date.now()).join(',')}}'::bigint[]`;
    // Each job's batch call size: none, as a single-job handler's completions carry.
    const sizes = `'{${batch.map(() => 'null').join(',')}}'::int[]`;
    return explainExecute(
      plans,
      mode,
      `EXECUTE completion(${Date.now()}, ${ids}, ${attempts}, ${results}, '${WORKER}', ${starts}, ${sizes})`,
    );
  }

  function expectOneWalkOfTheBatch(root: PlanNode): void {
    const nodes = planNodes(root);
    jobReadsByIndex(nodes);
    // The batch is a function scan: never the inner side of a nested loop, which would walk it once per outer row.
    const batchScans = nodes.filter(({ node }) => node['Node Type'] === 'Function Scan');
    expect(batchScans.length).toBe(1);
    for (const { node, parent } of batchScans) {
      expect(parent?.['Node Type'] === 'Nested Loop' && node['Parent Relationship'] === 'Inner').toBe(false);
    }
  }

  it('completes a batch longer than one statement takes (cut in pieces), each job with its own result, and only owned attempts', async () => {
    const now = Date.now();
    const jobs = await storage.enqueue(
      'long-batch',
      Array.from({ length: 600 }, () => newJob({ runAt: now - 1000 })),
      now,
    );
    const claimed = await storage.claim([{ queue: 'long-batch', limit: 600 }], 'long-worker', Date.now(), 60_000);
    expect(claimed).toHaveLength(600);
    // One attempt number is stale: that job is not completed, and its id is not reported.
    const stale = claimed[437];
    const completions = claimed.map((job) => ({
      ref: { id: job.id, attempt: job === stale ? job.attempts + 1 : job.attempts },
      result: JSON.stringify({ id: job.id }),
    }));
    const completed = await storage.completeMany(completions, 'long-worker', Date.now());
    expect(completed.size).toBe(599);
    expect(completed.has(stale.id)).toBe(false);
    for (const job of jobs) {
      const record = await storage.getJob(job.id);
      if (job.id === stale.id) expect(record?.status).toBe('running');
      else
        expect({ status: record?.status, result: record?.result }).toEqual({ status: 'completed', result: JSON.stringify({ id: job.id }) });
    }
  });

  it('is sent prepared (named), so the server may plan it once', () => {
    expect(completion.options?.reused).toBe(true);
  });

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'without statistics, %s: jobs by index, the batch walked once',
    async (mode) => {
      expectOneWalkOfTheBatch(await plan(mode));
    },
  );

  it.each(['force_generic_plan', 'force_custom_plan'] as const)(
    'with statistics, %s: jobs by index, the batch walked once',
    async (mode) => {
      await plans.source.query(`ANALYZE ${jobsTable()}`);
      expectOneWalkOfTheBatch(await plan(mode));
    },
  );
});
