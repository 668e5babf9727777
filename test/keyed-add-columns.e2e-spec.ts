/**
 * Every path that writes a job writes every column the others do (DESIGN.md, invariant 8): a plain add, an add with a
 * unique key, a throttled add (`keyTtl`), a debounced add that inserts and one that replaces, and a flow's child, all
 * given the same options, store the same row but for the columns that say which path wrote it. The rows are read raw,
 * column by column, so a column one path forgets shows up here. Tracing is on (the real SDK), so the trace context is
 * among them. And the columns are obeyed: a group's `groupConcurrency` holds for throttled and debounced jobs.
 */
import { JobOptions, QueueAdmin, QueueProducer } from '../lib';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { defineProcessor } from './fixtures/define-processor';
import { AppConnection, appConnection } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { installTracing } from './support/tracing';
import { deferred, waitFor } from './support/wait-for';

/** Columns that say which path wrote a row, or when: not compared. */
const PATH_COLUMNS = ['id', 'unique_key', 'key_until', 'debounce_key', 'parent_id', 'created_at', 'updated_at', 'run_at', 'trace_context'];

const DELAY = 60_000;

/** The same options for every path (a key and its mode are added per path). */
const OPTIONS: JobOptions = {
  group: 'acme',
  name: 'report',
  priority: 7,
  delay: DELAY,
  maxAttempts: 4,
  backoff: { type: 'fixed', delay: 500 },
  timeout: 9_000,
  removeOnComplete: true,
  removeOnFail: true,
};

let tracing: { uninstall(): Promise<void> } | undefined;
beforeAll(() => (tracing = installTracing(() => undefined)));
afterAll(() => tracing?.uninstall());

describeEachBackend('keyed adds write every column a plain add writes', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  /** The stored rows of these jobs, raw, by id. */
  async function rowsOf(ids: string[]): Promise<Map<string, Record<string, unknown>>> {
    connection ??= await appConnection(current);
    const schema = connection.options.postgres?.schema;
    const table = schema ? `"${schema}".${JOBS_TABLE}` : JOBS_TABLE;
    const rows: Record<string, unknown>[] = await connection.dataSource.query(`SELECT * FROM ${table}`);
    return new Map(rows.filter((row) => ids.includes(String(row.id))).map((row) => [String(row.id), row]));
  }

  /** A row without the columns of its path; its delay and whether it carries a trace context instead. */
  function comparable(row: Record<string, unknown> | undefined): Record<string, unknown> {
    if (!row) throw new Error('no such row');
    const kept = Object.fromEntries(Object.entries(row).filter(([column]) => !PATH_COLUMNS.includes(column)));
    const traceContext = row.trace_context === null ? null : (JSON.parse(String(row.trace_context)) as { traceparent?: string });
    return { ...kept, delay: Number(row.run_at) - Number(row.updated_at), traced: typeof traceContext?.traceparent === 'string' };
  }

  it('plain, unique key, throttled, debounced (insert and replace) and flow child store the same row for the same options', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const data = { n: 1 };
    const plain = await producer.add('columns', data, OPTIONS);
    const unique = await producer.add('columns', data, { ...OPTIONS, key: 'unique' });
    const throttled = await producer.add('columns', data, { ...OPTIONS, key: 'throttled', keyTtl: 60_000 });
    const debounced = await producer.add('columns', data, { ...OPTIONS, key: 'debounced', debounce: true });
    // Replaced by an add with the options: none of the first add's may stay.
    const first = await producer.add('columns', { n: 0 }, { key: 'replaced', debounce: true, priority: 1, group: 'other', name: 'old' });
    const replaced = await producer.add('columns', data, { ...OPTIONS, key: 'replaced', debounce: true });
    expect(replaced.id).toBe(first.id);
    // A flow's child takes every option but removeOn* (its parent reads its result): compared without it.
    const { removeOnComplete: _complete, removeOnFail: _fail, ...childOptions } = OPTIONS;
    const parent = await producer.addFlow({ queue: 'columns', data, children: [{ queue: 'columns', data, options: childOptions }] });
    const [childId] = (await app.get(QueueAdmin).getJob(parent.id))!.flow!.childrenIds;
    const child = { id: childId };

    const paths = { unique, throttled, debounced, replaced, child };
    const rows = await rowsOf([plain.id, ...Object.values(paths).map((job) => job.id)]);
    const expected = comparable(rows.get(plain.id));
    expect(expected).toMatchObject({ job_group: 'acme', name: 'report', delay: DELAY, traced: true });
    for (const [path, job] of Object.entries(paths)) {
      const row = comparable(rows.get(job.id));
      expect({ path, row }).toEqual({ path, row: path === 'child' ? { ...expected, remove_on: row.remove_on } : expected });
    }
    expect(comparable(rows.get(child.id)).remove_on).toBeNull();
  });

  it('with groupConcurrency 1, throttled and debounced jobs of one group never run at once', async () => {
    const gate = deferred();
    let running = 0;
    let most = 0;
    const ran: string[] = [];
    const processor = defineProcessor<{ group: string }>(
      'grouped',
      async (job) => {
        ran.push(job.data.group);
        if (job.data.group !== 'acme') return;
        most = Math.max(most, ++running);
        await gate.promise;
        running--;
      },
      { concurrency: 5, groupConcurrency: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [processor] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const acme = { group: 'acme' };
    const added = [
      await producer.add('grouped', acme, { group: 'acme', key: 't1', keyTtl: 60_000 }),
      await producer.add('grouped', acme, { group: 'acme', key: 't2', keyTtl: 60_000 }),
      await producer.add('grouped', acme, { group: 'acme', key: 'd1', debounce: true }),
      await producer.add('grouped', acme, { group: 'acme', key: 'd2', debounce: true }),
    ];
    // A later job of another group runs: the claims that took it had free slots for the older jobs of acme too.
    const other = await producer.add('grouped', { group: 'other' }, { group: 'other' });
    try {
      await waitFor(async () => (await admin.getJob(other.id))?.status === 'completed', 'the job of the other group completed');
      expect(running).toBe(1);
      expect(await admin.getCounts('grouped', { group: 'acme' })).toMatchObject({ running: 1, pending: 3 });
    } finally {
      gate.resolve();
    }
    for (const job of added) {
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', `job ${job.id} completed`);
    }
    expect(most).toBe(1);
    expect(ran.filter((group) => group === 'acme')).toHaveLength(4);
  });
});
