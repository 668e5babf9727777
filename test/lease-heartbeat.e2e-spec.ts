/**
 * The heartbeat renews only the jobs this process holds. A process that uses a fixed `workerId` (a pod name,
 * say) and restarts after a crash runs under the same name as the dead one; if its heartbeat renewed every
 * running row of that name, the dead process's jobs would never expire, and would stay stuck for as long as
 * the new process kept any job running.
 */
import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { ChildApp, readRunLog, startChildApp } from './support/child-app';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp } from './support/backends';
import { SHORT_LEASE, shortLeases } from './support/test-timings';

const WORKER_ID = 'pod-0';

describeEachBackend('lease heartbeat: a restarted process with the same workerId', (backend) => {
  const current = perTestApp(backend);
  let children: ChildApp[] = [];

  afterEach(async () => {
    await Promise.all(children.map((child) => child.kill()));
    children = [];
  });

  it('lets the dead process’s job expire and runs it again, while its own long job keeps its lease', async () => {
    const runLog = `${current.db.path}.runs`;
    // 1. The first incarnation of pod-0 takes a job that never ends, and is killed with -9.
    const first = startChildApp({
      connection: current.db.options,
      runLog,
      module: { workerId: WORKER_ID, ...shortLeases(backend) },
      queues: [{ name: 'orphans' }],
    });
    children.push(first);
    await first.printed('READY');
    const producerApp = await current.startApp({ module: { processing: false } });
    const orphan = await producerApp.get(QueueProducer).add('orphans', { hang: true });
    await producerApp.close();
    await waitFor(() => readRunLog(runLog).some((entry) => entry.id === orphan.id), 'the first incarnation started the job');
    expect(await first.kill()).toBe('SIGKILL');

    // 2. The next incarnation, same workerId, holds a job of its own that only ends once the orphan ran again:
    // its heartbeat beats all along, and must not keep the orphan's lease alive.
    const orphanRan = deferred<Job>();
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, workerId: WORKER_ID, ...shortLeases(backend) })],
      providers: [
        defineProcessor('orphans', async (job) => void orphanRan.resolve(job)),
        defineProcessor('long', async () => {
          await orphanRan.promise;
          return 'done';
        }),
      ],
    }).compile();
    await current.app.init();
    const admin = current.app.get(QueueAdmin);
    const long = await current.app.get(QueueProducer).add('long', {});
    await waitFor(async () => (await admin.getJob(long.id))?.status === 'running', 'the long job runs');

    const rerun = await Promise.race([
      orphanRan.promise,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the orphaned job never ran again')), 6 * SHORT_LEASE)),
    ]);
    expect(rerun).toMatchObject({ id: orphan.id, attempt: 2 });
    await waitFor(async () => (await admin.getJob(long.id))?.status === 'completed', 'the long job completed');
    expect(await admin.getJob(long.id)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});

describeEachBackend('lease heartbeat: a job running three times its lease', (backend) => {
  const current = perTestApp(backend);
  // The shortest lease SQLite accepts with the short busy timeout; PostgreSQL has no minimum.
  const lease = SHORT_LEASE;

  it('keeps its lease by heartbeats and completes exactly once, while a second worker polls the same database', async () => {
    const runs: { worker: string; attempt: number }[] = [];
    const worker = (name: string) =>
      defineProcessor('long-lease', async (job) => {
        runs.push({ worker: name, attempt: job.attempt });
        await new Promise((resolve) => setTimeout(resolve, 3 * lease));
        return name;
      });
    const module = shortLeases(backend);
    const first = await current.startApp({ module, providers: [worker('first')] });
    const job = await first.get(QueueProducer).add('long-lease', {});
    await waitFor(() => runs.length === 1, 'the first worker started the job');
    // The second worker (its own workerId, its own lease keeper and recovery) polls throughout: an unrenewed lease
    // would be recovered and the job run again by one of them.
    await current.startApp({ module, providers: [worker('second')] });
    const admin = first.get(QueueAdmin);
    // Ends early when a second run starts, so a lost lease fails the test at once rather than by timing out.
    const finished = async () => runs.length > 1 || ['completed', 'failed'].includes((await admin.getJob(job.id))?.status ?? '');
    await waitFor(finished, 'the long job finished', 6 * lease + 30_000);
    expect(runs).toEqual([{ worker: 'first', attempt: 1 }]);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the long job completed');
    expect(await admin.getJob(job.id)).toMatchObject({ status: 'completed', attempts: 1, result: 'first' });
  });
});
