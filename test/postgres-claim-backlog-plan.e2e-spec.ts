/**
 * A PostgreSQL claim's price must not grow with the backlog it walks. The server JIT-compiles a statement priced
 * above `jit_above_cost` (100,000 by default), and a claim gains nothing from it: a claim priced by its backlog paid
 * about 30 ms of compilation per call at 5 million due jobs in one queue (400 ms for the grouped claim), every call.
 * The planner prices a LIMIT that is not a constant as a tenth of the rows below it, so each claim walks the claim
 * index under a constant bound too (`claimWalk`, the most a claim ever takes), which stops the price growing once a
 * queue's backlog passes it. Here: the three claim texts, priced at a backlog beyond that bound and at twice it.
 *
 * The plain claim is also kept planned once (postgres-claim-plan.e2e-spec.ts): its generic and custom plans must
 * be priced alike at any backlog, so it reads the due time through a sub-select, as it reads its requests.
 */
import { DataSource } from 'typeorm';
import { claimJobs } from '../lib/storage/postgres/sql/claim.sql';
import { postgresTables } from '../lib/storage/postgres/sql/postgres-sql-fragments';
import { ClaimRequest } from '../lib/storage/queue-storage.interface';
import { LIMITS } from '../lib/utils/validation.util';
import { Backend, describePostgres } from './support/backends';
import { PlanCacheMode, PlanDatabase, PlanNode, explainExecute, openPlanDatabase, planNodes } from './support/postgres-plan';

const QUEUE = 'deep';
/** A backlog past the walk's bound even where the planner believes a third of the rows due (the generic plan). */
const BACKLOG = 3 * LIMITS.batchSize + 50_000;

/** The claim texts, as claimJobs sends them for these requests. */
const CLAIMS: { name: string; requests: ClaimRequest[] }[] = [
  { name: 'the plain claim', requests: [{ queue: QUEUE, limit: 75 }] },
  { name: 'the limited claim', requests: [{ queue: QUEUE, limit: 75, rateLimited: false, globalConcurrency: 1000 }] },
  { name: 'the grouped claim', requests: [{ queue: QUEUE, limit: 75, grouped: true }] },
];

describePostgres('claim price against the backlog', (backend: Backend) => {
  let plans: PlanDatabase;
  const statements = new Map<string, { sql: string; params: unknown[] }>();
  /** Each claim's price under each plan mode, at the backlog and at twice it. */
  const prices = new Map<string, number[]>();

  async function fill(count: number): Promise<void> {
    const at = Date.now() - 60_000;
    await plans.source.query(
      `INSERT INTO ${plans.jobsTable} (queue, status, data, run_at, max_attempts, created_at, updated_at)
       SELECT $1, 'pending', '{}', $2, 3, $2, $2 FROM generate_series(1, $3)`,
      [QUEUE, at, count],
    );
    await plans.source.query(`ANALYZE ${plans.jobsTable}`);
  }

  /** A parameter as a literal of an EXECUTE (the prepared statement's types coerce it). */
  function literal(value: unknown): string {
    if (value === null || value === undefined) return 'NULL';
    if (Array.isArray(value)) return literal(`{${value.map((item) => (item === null ? 'NULL' : JSON.stringify(String(item)))).join(',')}}`);
    if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
    return String(value);
  }

  /**
   * The claim's estimated total cost under `mode`, prepared and EXPLAINed through EXECUTE: an EXPLAIN given the
   * parameters themselves always plans with their values, as a custom plan.
   */
  async function price(source: DataSource, name: string, mode: PlanCacheMode): Promise<number> {
    const { sql, params } = statements.get(name)!;
    await source.query('DEALLOCATE ALL');
    await source.query(`PREPARE priced AS ${sql}`);
    const plan = await explainExecute(plans, mode, `EXECUTE priced(${params.map(literal).join(', ')})`);
    return plan['Total Cost']!;
  }

  async function priceAll(): Promise<void> {
    for (const { name } of CLAIMS) {
      for (const mode of ['force_generic_plan', 'force_custom_plan'] as const) {
        const key = `${name} ${mode}`;
        prices.set(key, [...(prices.get(key) ?? []), await price(plans.source, name, mode)]);
      }
    }
  }

  beforeAll(async () => {
    plans = await openPlanDatabase(backend);
    const now = Date.now();
    for (const { name, requests } of CLAIMS) {
      const runner = {
        all: async (sql: string, params: unknown[]) => {
          statements.set(name, { sql, params });
          return [];
        },
        run: async () => 0,
      };
      await claimJobs({ runner, tables: postgresTables(plans.schema) }, requests, 'backlog-worker', now, 30_000);
    }
    await fill(BACKLOG);
    await priceAll();
    await fill(BACKLOG);
    await priceAll();
  }, 180_000);

  afterAll(async () => {
    await plans?.close();
  });

  it.each(CLAIMS.flatMap(({ name }) => [`${name} force_generic_plan`, `${name} force_custom_plan`]))(
    '%s: priced the same at twice the backlog, far below jit_above_cost',
    (key) => {
      const [once, twice] = prices.get(key)!;
      expect(twice / once).toBeLessThan(1.1);
      expect(twice).toBeLessThan(50_000);
    },
  );

  it('the plain claim: its generic plan priced as its custom plans, so the server keeps the generic one', () => {
    const [generic] = prices.get('the plain claim force_generic_plan')!.slice(-1);
    const [custom] = prices.get('the plain claim force_custom_plan')!.slice(-1);
    expect(Math.abs(generic - custom) / custom).toBeLessThan(0.01);
  });

  it('the plain claim locks only the rows it takes, though its walk is bounded far above them', async () => {
    const { sql, params } = statements.get('the plain claim')!;
    await plans.source.query('DEALLOCATE ALL');
    await plans.source.query(`PREPARE locking AS ${sql}`);
    await plans.source.query('SET plan_cache_mode = force_generic_plan');
    await plans.source.query('BEGIN');
    try {
      const [row] = (await plans.source.query(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE locking(${params.map(literal).join(', ')})`)) as {
        'QUERY PLAN': { Plan: PlanNode }[];
      }[];
      const locks = planNodes(row['QUERY PLAN'][0].Plan).filter(({ node }) => node['Node Type'] === 'LockRows');
      expect(locks).toHaveLength(1);
      const { node } = locks[0];
      expect(node['Actual Rows']! * node['Actual Loops']!).toBe(75);
    } finally {
      await plans.source.query('ROLLBACK');
    }
  });

  it('a claim at this backlog takes and locks only what it asks for', async () => {
    const claimed = await plans.storage.claim([{ queue: QUEUE, limit: 75 }], 'backlog-worker', Date.now(), 30_000);
    expect(claimed).toHaveLength(75);
    const [{ running }] = (await plans.source.query(
      `SELECT count(*)::int AS running FROM ${plans.jobsTable} WHERE status = 'running'`,
    )) as { running: number }[];
    expect(running).toBe(75);
  });
});
