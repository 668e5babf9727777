/**
 * A job claimed ahead of a free slot (`prefetch`) is not running: `getCounts` counts it `claimed`, `getJob` shows no
 * start, `explain` says `claimed-ahead`, until a handler gets it and its real start is written. And the start costs a
 * no-op workload no statement: the claim writes no start, and a job that starts and ends within one write round has
 * its start written by its completion.
 */
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { CountingConnection, StatementLog, countingConnection } from './support/counting-data-source';
import { deferred, waitFor } from './support/wait-for';

interface Step {
  name: string;
}

describeEachBackend('jobs claimed ahead of a free slot', (backend) => {
  let connection: CountingConnection | undefined;
  const current = perTestApp(backend, MIGRATED);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('count as claimed, not running, with no start, until a handler gets them; then their real start is written', async () => {
    const gates = new Map([
      ['a', deferred<void>()],
      ['b', deferred<void>()],
    ]);
    const handedAt = new Map<string, number>();
    const Gated = defineProcessor<Step>(
      'ahead',
      async (job: Job<Step>) => {
        handedAt.set(job.data.name, Date.now());
        await gates.get(job.data.name)!.promise;
        return job.data.name;
      },
      { concurrency: 1, prefetch: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50, leaseDuration: 120_000 }, providers: [Gated] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const a = await producer.add<Step>('ahead', { name: 'a' });
    await waitFor(() => handedAt.has('a'), 'a handler has a');
    const b = await producer.add<Step>('ahead', { name: 'b' });
    await waitFor(async () => (await admin.getJob(b.id))?.status === 'running', 'b claimed ahead');
    await waitFor(async () => (await admin.getJob(a.id))?.startedAt !== null, "a's start written");

    expect(await admin.getCounts('ahead')).toEqual({ pending: 0, running: 1, claimed: 1, completed: 0, failed: 0, cancelled: 0 });
    const [queue] = (await admin.listQueues()).filter((info) => info.name === 'ahead');
    expect(queue.counts).toMatchObject({ running: 1, claimed: 1 });
    const started = (await admin.getJob(a.id))!.startedAt!.getTime();
    expect(started).toBeLessThanOrEqual(handedAt.get('a')!);
    expect(await admin.getJob(b.id)).toMatchObject({ status: 'running', startedAt: null, attempts: 1 });
    expect(await admin.explain(a.id)).toMatchObject({ status: 'running', reason: 'running' });
    const why = await admin.explain(b.id);
    expect(why).toMatchObject({ status: 'running', reason: 'claimed-ahead' });
    expect(why.owner).toBe((await admin.getJob(b.id))!.lockedBy);
    expect(why.until!.getTime()).toBeGreaterThan(Date.now());
    expect(why.detail).toContain('claimed ahead');

    const opened = Date.now();
    gates.get('a')!.resolve();
    await waitFor(() => handedAt.has('b'), 'a handler has b');
    await waitFor(async () => (await admin.getJob(b.id))?.startedAt !== null, "b's start written while it runs");
    const bStarted = (await admin.getJob(b.id))!.startedAt!.getTime();
    expect(bStarted).toBeGreaterThanOrEqual(opened);
    expect(bStarted).toBeLessThanOrEqual(handedAt.get('b')!);
    await waitFor(async () => (await admin.getJob(a.id))?.status === 'completed', 'a completed');
    expect(await admin.getCounts('ahead')).toMatchObject({ running: 1, claimed: 0, completed: 1 });
    expect(await admin.explain(b.id)).toMatchObject({ reason: 'running' });

    gates.get('b')!.resolve();
    await admin.waitUntilFinished(b.id, { timeout: 10_000 });
    // The completion keeps the start the running job already had; the history's run is the same.
    const done = (await admin.getJob(b.id))!;
    expect(done.startedAt!.getTime()).toBe(bStarted);
    expect(done.runs).toEqual([expect.objectContaining({ outcome: 'completed', startedAt: new Date(bStarted) })]);
  });

  it('a no-op workload: no statement writes a start, and the claims and completions are as many as before', async () => {
    connection = countingConnection(current.db);
    const log = connection.log;
    let handled = 0;
    const Noop = defineProcessor(
      'noop',
      async () => {
        handled++;
      },
      { concurrency: 4 },
    );
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 50 })],
      providers: [Noop],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const jobs = 300;
    const from = log.statements.length;
    await producer.addBulk(
      'noop',
      Array.from({ length: jobs }, (_, n) => ({ data: { n } })),
    );
    await waitFor(async () => (await admin.getCounts('noop')).completed === jobs, 'every job completed');
    expect(handled).toBe(jobs);
    const statements = log.statements.slice(from);
    const starts = statements.filter((statement) => statement.sql.includes('/* started */'));
    expect(starts).toEqual([]);
    // Every completed row has its handler's start, none later than its end.
    for (const job of await admin.getJobs('noop', { status: 'completed', limit: 50 })) {
      expect(job.startedAt).not.toBeNull();
      expect(job.startedAt!.getTime()).toBeLessThanOrEqual(job.finishedAt!.getTime());
    }
    const claims = statements.filter(StatementLog.isClaim).length;
    const completions = statements.filter((statement) => statement.sql.includes('/* complete */')).length;
    expect(claims).toBeLessThan(jobs);
    expect(completions).toBeLessThan(jobs);
  });
});
