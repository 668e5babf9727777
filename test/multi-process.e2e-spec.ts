import { TestingModule } from '@nestjs/testing';
import { Job, Processor, QueueAdmin, QueueProcessor, SqliteQueueModule } from '../lib';
import { readRunLog, startChildApp } from './support/child-app';
import { CountingConnection, countingConnection } from './support/counting-data-source';
import { jobCounts } from './support/job-counts';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp } from './support/backends';

@Processor('inbox')
class InboxProcessor implements QueueProcessor<{ n: number }, number> {
  readonly seen: number[] = [];
  async process(job: Job<{ n: number }>): Promise<number> {
    this.seen.push(job.data.n);
    return job.data.n;
  }
}

describeEachBackend('several OS processes on one file', (backend) => {
  let app: TestingModule | undefined;
  let connection: CountingConnection | undefined;

  afterEach(() => {
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('picks up jobs that a second OS process enqueues after this app has been idle for several poll periods', async () => {
    // A DataSource whose logger counts statements, so the test can see the app's empty claim rounds.
    connection = countingConnection(current.db);
    // The counting DataSource stands in for the database's own connection options.
    app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 200 })],
      providers: [InboxProcessor],
    });
    const admin = app.get(QueueAdmin);
    // Idle first: a poller whose back-off grows on empty rounds (and never resets, as in the original) would
    // be slow to notice work after this, or never notice it within the test's wait.
    const log = connection.log;
    const claimsAtBoot = log.claims;
    await waitFor(() => log.claims >= claimsAtBoot + 5, 'five more claim rounds while idle', 30_000, 20);
    expect(await admin.getCounts()).toEqual(jobCounts()); // those rounds had nothing to claim
    const producer = startChildApp({
      connection: current.db.options,
      produce: { queue: 'inbox', count: 25, bulk: 10 },
      exitAfterProduce: true,
    });
    expect(await producer.exited).toBe(0);
    await waitFor(async () => (await admin.getCounts('inbox')).completed === 25, '25 jobs from the other process completed');
    expect([...app.get(InboxProcessor).seen].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('two OS processes running the app on one file run each of 5,000 jobs exactly once', async () => {
    const runLog = `${current.db.path}.runs`;
    const worker = () =>
      startChildApp({
        connection: current.db.options,
        runLog,
        module: { pollInterval: 100 },
        queues: [{ name: 'shared', concurrency: 8 }],
      });
    const workers = [worker(), worker()];
    await Promise.all(workers.map((w) => w.printed('READY')));
    const producer = startChildApp({
      connection: current.db.options,
      produce: { queue: 'shared', count: 5000, bulk: 250 },
      exitAfterProduce: true,
    });
    expect(await producer.exited).toBe(0);
    app = await current.startApp({ module: { processing: false } });
    const admin = app.get(QueueAdmin);
    await waitFor(async () => (await admin.getCounts('shared')).completed === 5000, 'all 5,000 completed', 120_000, 100);
    await Promise.all(workers.map((w) => w.stop()));
    const runs = readRunLog(runLog);
    expect(runs).toHaveLength(5000);
    expect(new Set(runs.map((run) => run.id)).size).toBe(5000);
    const pids = new Set(runs.map((run) => run.pid));
    expect(pids.size).toBe(2);
    expect(await admin.getCounts('shared')).toEqual({ pending: 0, running: 0, completed: 5000, failed: 0, cancelled: 0, claimed: 0 });
  });
});
