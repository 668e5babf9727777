/**
 * `nestjs-sqlite-queue promote` as a real OS process, from a real SQLite file (each driver) into a real PostgreSQL
 * schema: a database with every kind of row (one built by this version, and the frozen 0.1.0 fixture the upgrade
 * tests use, migrated by the CLI), then an application on PostgreSQL that runs the pending work, the flow parent
 * after its children, the schedule at its cadence, keys that still deduplicate and new ids after the old. And the
 * refusals, which write nothing on either side.
 */
import { writeFileSync } from 'node:fs';
import { Job, JobInfo, QueueAdmin, QueueProducer } from '../lib';
import { EXIT_CODES } from '../lib/cli/exit-codes';
import { promoteQueueDatabase } from '../lib/cli/promote/promote-queue-database';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { defineProcessor } from './fixtures/define-processor';
import { LEGACY_QUEUE, createLegacyDatabase } from './fixtures/legacy-schema';
import { Backend, TestDatabase, describeEachSqlite, itWhen, perTestApp } from './support/backends';
import { runCliChild } from './support/cli-child';
import { runCliInProcess } from './support/cli-in-process';
import { queryDatabase } from './support/ops';
import { postgresSchemaFor, postgresTestUrl } from './support/test-backend';
import { shortLeases } from './support/test-timings';
import { waitFor } from './support/wait-for';
import { expectExit, fileHash } from './support/cli-expect';

const POSTGRES = !process.env.QUEUE_TEST_POSTGRES_SKIPPED;

/** Runs of the PostgreSQL app's handlers, in order. */
const ran: { queue: string; id: string; at: number }[] = [];
const record = (job: Job) => ran.push({ queue: job.queue, id: job.id, at: Date.now() });

const WorkProcessor = defineProcessor<{ fail?: boolean }>(
  'work',
  async (job) => {
    record(job);
    await job.log(`working on ${job.id}`);
    if (job.data.fail) throw new Error('work failed');
    return { done: job.id };
  },
  { maxAttempts: 1, limiter: { max: 1000, duration: 60_000 } },
);
const TickProcessor = defineProcessor('tick', async (job) => record(job), { schedules: [{ name: 'hourly', every: 3_600_000 }] });
const LaterProcessor = defineProcessor('later', async (job) => record(job));
const PartProcessor = defineProcessor('part', async (job) => record(job));
const AssembleProcessor = defineProcessor('assemble', async (job) => record(job));
const HeldProcessor = defineProcessor('held', async (job) => record(job));
const LegacyProcessor = defineProcessor(LEGACY_QUEUE, async (job) => record(job));

describeEachSqlite('nestjs-sqlite-queue promote', (backend: Backend) => {
  const current = perTestApp(backend);
  // Several CLI processes and apps per test; on the shared 2-core machine under load that can pass a minute.
  jest.setTimeout(180_000);
  /** The PostgreSQL test database the copy goes to: a schema of this run, dropped by its teardown. */
  let target: TestDatabase;
  beforeEach(() => {
    ran.length = 0;
    const path = `${current.db.path}.pg`;
    target = {
      ...current.db,
      path,
      options: { postgres: { url: postgresTestUrl(), schema: postgresSchemaFor(path) }, shutdownTimeout: 2000 },
    };
  });
  const schema = () => target.options.postgres!.schema!;
  const promote = (extra: string[] = []) =>
    runCliChild([
      'promote',
      '--from',
      current.db.path,
      '--to',
      postgresTestUrl(),
      '--schema',
      schema(),
      '--driver',
      backend.driver!,
      ...extra,
    ]);
  const targetRows = async (sql: string): Promise<Record<string, unknown>[]> => {
    const { DataSource } = await import('typeorm');
    const dataSource = await new DataSource({ type: 'postgres', url: postgresTestUrl(), poolSize: 1 }).initialize();
    try {
      return (await dataSource.query(sql.replace(/\{schema\}/g, `"${schema()}"`))) as Record<string, unknown>[];
    } finally {
      await dataSource.destroy();
    }
  };

  itWhen(POSTGRES)('copies a database built by this version: every job as it was, then PostgreSQL runs the rest', async () => {
    // On SQLite: finished work with results, errors and logs, a schedule, a rate limiter; then work nobody runs here.
    const source = await current.startApp({ providers: [WorkProcessor, TickProcessor] });
    const producer = source.get(QueueProducer);
    await producer.add('work', {});
    await producer.add('work', { fail: true });
    await source.get(QueueAdmin).waitUntilIdle('work', { timeout: 20_000 });
    const delayed = await producer.add('work', {}, { delay: 3_600_000, priority: 7, name: 'nightly' });
    const keyed = await producer.add('held', { n: 1 }, { key: 'k1' });
    await source.get(QueueAdmin).pause('held');
    const later = await producer.add('later', { n: 2 }, { priority: 3 });
    const flow = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'part', data: { p: 1 } },
        { queue: 'part', data: { p: 2 } },
      ],
    });
    const admin = source.get(QueueAdmin);
    const ids = (await queryDatabase<{ id: number }>(current.db, 'SELECT id FROM nest_queue_jobs ORDER BY id')).map((row) =>
      String(row.id),
    );
    const before = new Map<string, [JobInfo | null, string[] | null]>();
    for (const id of ids) before.set(id, [await admin.getJob(id), await admin.getJobLogs(id)]);
    const schedules = await queryDatabase(current.db, 'SELECT * FROM nest_queue_schedules ORDER BY queue, name');
    const queues = await queryDatabase(current.db, 'SELECT * FROM nest_queue_queues ORDER BY queue');
    const [{ seq }] = await queryDatabase<{ seq: number }>(current.db, `SELECT seq FROM sqlite_sequence WHERE name = 'nest_queue_jobs'`);
    await current.close(source);
    const hash = fileHash(current.db.path);

    const run = await promote();
    expectExit(run, EXIT_CODES.ok);
    expect(run.stdout).toMatch(new RegExp(`^promoted ${ids.length} job\\(s\\) \\(ids ${ids[0]}-${ids.at(-1)}, next id ${seq + 1}\\)`, 'm'));
    expect(run.stdout).toMatch(/ in \d+\.\d s: point forRoot at postgres/);
    expect(fileHash(current.db.path)).toBe(hash);

    // What the copy holds, read through the library on PostgreSQL before anything runs there.
    const reader = await current.startApp({ module: { processing: false } }, target);
    const copied = reader.get(QueueAdmin);
    for (const id of ids) expect([await copied.getJob(id), await copied.getJobLogs(id)]).toEqual(before.get(id));
    const normalize = (rows: Record<string, unknown>[]) =>
      rows.map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([k, v]) => [
            k,
            v === null ? null : typeof v === 'boolean' ? Number(v) : Number.isNaN(Number(v)) ? v : Number(v),
          ]),
        ),
      );
    expect(normalize(await targetRows('SELECT * FROM {schema}.nest_queue_schedules ORDER BY queue, name'))).toEqual(normalize(schedules));
    expect(normalize(await targetRows('SELECT * FROM {schema}.nest_queue_queues ORDER BY queue'))).toEqual(normalize(queues));
    // A key that deduplicated on SQLite deduplicates here; a new job gets an id after every id SQLite handed out.
    expect((await reader.get(QueueProducer).add('held', { n: 9 }, { key: 'k1' })).id).toBe(keyed.id);
    const fresh = await reader.get(QueueProducer).add('later', { n: 3 });
    // (The deduplicated add above may have spent one value of PostgreSQL's sequence: ids are unique, not gapless.)
    expect(Number(fresh.id)).toBeGreaterThan(seq);
    await current.close(reader);

    // The application, pointed at PostgreSQL, runs the pending work: the flow's parent after its children.
    const app = await current.startApp(
      { providers: [WorkProcessor, TickProcessor, LaterProcessor, PartProcessor, AssembleProcessor, HeldProcessor] },
      target,
    );
    const onPostgres = app.get(QueueAdmin);
    await waitFor(
      async () => (await onPostgres.getJob(flow.id))?.status === 'completed',
      'the flow parent completes on PostgreSQL',
      30_000,
    );
    await onPostgres.waitUntilIdle(undefined, { timeout: 20_000 });
    expect((await onPostgres.getJob(later.id))?.status).toBe('completed');
    expect((await onPostgres.getJob(fresh.id))?.status).toBe('completed');
    const parentRun = ran.findIndex((entry) => entry.id === flow.id);
    expect(ran.filter((entry, index) => entry.queue === 'part' && index < parentRun)).toHaveLength(2);
    // Still paused, still delayed, and the schedule keeps its next run (its occurrence not run again early).
    expect((await onPostgres.getJob(keyed.id))?.status).toBe('pending');
    expect((await onPostgres.getJob(delayed.id))?.runAt).toEqual(before.get(delayed.id)![0]!.runAt);
    expect(ran.filter((entry) => entry.queue === 'tick')).toHaveLength(0);
    expect(normalize(await targetRows('SELECT next_run_at FROM {schema}.nest_queue_schedules'))).toEqual(
      normalize(schedules.map(({ next_run_at }) => ({ next_run_at }))),
    );
  });

  itWhen(POSTGRES)('moves the id sequence above every id SQLite gave, also when the newest job was removed before', async () => {
    const source = await current.startApp({ module: { processing: false } });
    const producer = source.get(QueueProducer);
    const jobs = [await producer.add('later', { n: 1 }), await producer.add('later', { n: 2 }), await producer.add('later', { n: 3 })];
    await source.get(QueueAdmin).remove(jobs[2].id);
    await current.close(source);
    // SQLite remembers the removed id (AUTOINCREMENT): the highest id ever given is above the highest id left.
    const [{ seq }] = await queryDatabase<{ seq: number }>(current.db, `SELECT seq FROM sqlite_sequence WHERE name = 'nest_queue_jobs'`);
    expect(seq).toBe(Number(jobs[2].id));

    const run = await runCliInProcess([
      'promote',
      '--from',
      current.db.path,
      '--to',
      postgresTestUrl(),
      '--schema',
      schema(),
      '--driver',
      backend.driver!,
    ]);
    expectExit(run, EXIT_CODES.ok);
    expect(run.stdout).toMatch(new RegExp(`^promoted 2 job\\(s\\) \\(ids ${jobs[0].id}-${jobs[1].id}, next id ${seq + 1}\\)`, 'm'));
    const app = await current.startApp({ module: { processing: false } }, target);
    // A removed job's id may still be named somewhere (a log line, a webhook, an operator's note): never a new job's.
    const fresh = await app.get(QueueProducer).add('later', { n: 4 });
    expect(Number(fresh.id)).toBeGreaterThan(seq);
    expect(await app.get(QueueAdmin).getJob(jobs[2].id)).toBeNull();
  });

  itWhen(POSTGRES)('copies the frozen 0.1.0 fixture once the CLI migrated it, and PostgreSQL runs its pending jobs', async () => {
    await createLegacyDatabase(current.db);
    const outdated = await promote();
    expectExit(
      outdated,
      EXIT_CODES.refused,
      /PromoteRefusedError: promote refused \(schema-mismatch\): .* records no schema version \(an older build made it\).*run `nestjs-sqlite-queue migrate/,
    );
    const dryRun = await runCliChild(['migrate', '--dry-run', '--database', current.db.path, '--driver', backend.driver!]);
    expectExit(dryRun, EXIT_CODES.ok);
    expect(dryRun.stdout).toMatch(/^-- step 2: partial-status-index|^-- step 2: finished-index/m);
    expectExit(await runCliChild(['migrate', '--database', current.db.path, '--driver', backend.driver!]), EXIT_CODES.ok);
    expectExit(await promote(), EXIT_CODES.ok);
    const app = await current.startApp({ module: shortLeases({ kind: 'postgres' }), providers: [LegacyProcessor] }, target);
    const admin = app.get(QueueAdmin);
    // Two pending jobs run; the running one whose process died long ago is recovered and runs too.
    await waitFor(async () => (await admin.getCounts(LEGACY_QUEUE)).completed === 4, 'the legacy jobs complete on PostgreSQL', 30_000);
    expect(await admin.getCounts(LEGACY_QUEUE)).toEqual({ pending: 0, running: 0, completed: 4, failed: 1, cancelled: 1, claimed: 0 });
  });

  itWhen(POSTGRES)('refuses while a job runs under a live lease, naming its holder, and writes nothing', async () => {
    const source = await current.startApp();
    const job = await source.get(QueueProducer).add('work', {});
    await current.close(source);
    await queryDatabase(
      current.db,
      `UPDATE nest_queue_jobs SET status = 'running', locked_by = 'worker-on-host-a', lease_until = ? WHERE id = ?`,
      [Date.now() + 3_600_000, Number(job.id)],
    );
    const hash = fileHash(current.db.path);
    const run = await promote();
    expectExit(
      run,
      EXIT_CODES.refused,
      /promote refused \(running-jobs\): .*held by worker-on-host-a \(1 job\(s\) of work\): stop the workers first/,
    );
    expect(await targetRows(`SELECT nspname FROM pg_namespace WHERE nspname = '${schema()}'`)).toEqual([]);
    expect(fileHash(current.db.path)).toBe(hash);
  });

  // A process stopped by a shutdown does not count: the first test promotes right after closing its app.
  itWhen(POSTGRES)('refuses while a process is live on the file, naming it, and writes nothing; --force copies', async () => {
    const worker = await current.startApp({ providers: [LaterProcessor], module: { workerId: 'still-running' } });
    await worker.get(QueueProducer).add('later', { n: 1 }, { delay: 3_600_000 });
    const refused = await promote();
    expectExit(
      refused,
      EXIT_CODES.refused,
      /promote refused \(live-processes\): processes are live on .*: still-running \(queues later\)\. Stop them/,
    );
    expect(await targetRows(`SELECT nspname FROM pg_namespace WHERE nspname = '${schema()}'`)).toEqual([]);
    await current.close(worker);
    // A process killed without a shutdown stays listed until its announcement lapses: forged here, --force copies anyway.
    await queryDatabase(current.db, `UPDATE nest_queue_processes SET stopped_at = NULL, until = ? WHERE worker_id = 'still-running'`, [
      Date.now() + 3_600_000,
    ]);
    expectExit(await promote(), EXIT_CODES.refused, /live-processes/);
    const forced = await promote(['--force']);
    expectExit(forced, EXIT_CODES.ok);
    expect(await targetRows('SELECT data FROM {schema}.nest_queue_jobs')).toEqual([{ data: '{"n":1}' }]);
  });

  it('a --from file that is not a SQLite database exits 3 with DatabaseOpenError, before any server is asked', async () => {
    const notSqlite = `${current.db.path}.txt`;
    writeFileSync(notSqlite, 'not a database, only text\n'.repeat(200));
    const before = fileHash(notSqlite);
    // Port 1: nothing listens there, so an exit that reached the server would say so instead.
    const run = await runCliInProcess([
      'promote',
      '--from',
      notSqlite,
      '--to',
      'postgres://nobody@127.0.0.1:1/none',
      '--driver',
      backend.driver!,
    ]);
    expectExit(run, EXIT_CODES.database, /^error: DatabaseOpenError: .*not a SQLite database/m);
    expect(fileHash(notSqlite)).toBe(before);
  });

  // The CLI copies 5,000 rows a chunk: a file of more rows than one chunk, made small here.
  itWhen(POSTGRES)('copies a file of more rows than one chunk: every row once, across the chunk boundaries', async () => {
    const source = await current.startApp({ module: { processing: false } });
    const added = await source.get(QueueProducer).addBulk(
      'later',
      Array.from({ length: 7 }, (_, n) => ({ data: { n } })),
    );
    await current.close(source);
    const report = await promoteQueueDatabase({
      from: current.db.path,
      driver: backend.driver!,
      to: postgresTestUrl(),
      toLabel: 'the test server',
      schema: schema(),
      chunkSize: 2,
    });
    expect(report.rows[JOBS_TABLE]).toBe(7);
    expect(report.ids).toEqual({ min: Number(added[0].id), max: Number(added[6].id) });
    expect((await targetRows('SELECT data FROM {schema}.nest_queue_jobs ORDER BY id')).map((row) => row.data)).toEqual(
      added.map((_, n) => JSON.stringify({ n })),
    );
  });

  itWhen(POSTGRES)('refuses a target schema that already holds jobs, and writes nothing', async () => {
    const source = await current.startApp();
    await source.get(QueueProducer).add('work', { from: 'sqlite' });
    await current.close(source);
    const existing = await current.startApp({}, target);
    await existing.get(QueueProducer).add('work', { from: 'postgres' });
    await current.close(existing);
    const run = await promote();
    expectExit(run, EXIT_CODES.refused, /promote refused \(target-not-empty\): schema ".*" already holds jobs/);
    expect(await targetRows('SELECT data FROM {schema}.nest_queue_jobs')).toEqual([{ data: '{"from":"postgres"}' }]);
  });
});
