/**
 * PostgreSQL kills a worker's connections again and again (`pg_terminate_backend`, as a failover or an operator
 * does): the worker process must survive every time, and every job must complete. node-postgres emits `error` on a
 * client whose connection the server ended; one moment without a listener is a crash, so the scenario is repeated
 * in fresh child processes.
 */
import { TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { QueueAdmin, QueueProducer } from '../lib';
import { ChildApp, startChildApp } from './support/child-app';
import { waitWhileProgressing } from './support/wait-for';
import { describePostgres, perTestApp } from './support/backends';

/** Child processes started, each killed at for `KILL_FOR_MS`: the unguarded code died in about 1 in 4. */
const RUNS = 8;
const KILL_FOR_MS = 3000;
/** Enough work to keep many pooled connections busy (and reopening) for the whole kill window. */
const JOBS = 3000;

describePostgres("PostgreSQL: the server terminating a worker's connections", (backend) => {
  let app: TestingModule | undefined;
  let child: ChildApp | undefined;
  let killer: DataSource | undefined;

  afterEach(async () => {
    await child?.kill();
    child = undefined;
    await killer?.destroy();
    killer = undefined;
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);

  /** Starts a worker whose every connection (pool and LISTEN) carries `applicationName`, so only its own are killed. */
  function startWorker(applicationName: string): ChildApp {
    const url = new URL(current.db.options.postgres!.url!);
    url.searchParams.set('application_name', applicationName);
    const connection = { postgres: { ...current.db.options.postgres, url: url.toString() } };
    return startChildApp({ connection, module: { pollInterval: 50, leaseDuration: 5000 }, queues: [{ name: 'k', concurrency: 16 }] });
  }

  it(`a worker survives ${RUNS} runs of pg_terminate_backend every 150-300 ms and completes every job`, async () => {
    app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    killer = new DataSource({ type: 'postgres', url: current.db.options.postgres!.url, poolSize: 1 });
    await killer.initialize();

    for (let run = 0; run < RUNS; run++) {
      const applicationName = `qt_kill_${process.pid}_${run}`;
      child = startWorker(applicationName);
      await child.printed('READY');
      let exitedUnasked: number | string | null = null;
      void child.exited.then((code) => (exitedUnasked ??= code));
      const jobs = await producer.addBulk(
        'k',
        Array.from({ length: JOBS }, (_, n) => ({ data: { n, sleep: 5 } })),
      );

      const until = Date.now() + KILL_FOR_MS;
      let kills = 0;
      while (Date.now() < until && exitedUnasked === null) {
        const killed: unknown[] = await killer.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
          applicationName,
        ]);
        kills += killed.length;
        await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 150));
      }
      expect({ run, exitedUnasked, stderr: exitedUnasked === null ? '' : child.stderr() }).toEqual({
        run,
        exitedUnasked: null,
        stderr: '',
      });
      expect(kills).toBeGreaterThan(0);

      // Every job completes: waited for as long as jobs keep completing (a loaded machine runs 3,000 of them slowly),
      // failing once none has completed for 30 s: more than a lost claim's lease (5 s), its recovery jitter (at most the
      // lease) and a failing task's longest back-off (5 s) together.
      const worker = child;
      await waitWhileProgressing(async () => (await admin.getCounts('k')).completed, (run + 1) * JOBS, `run ${run}: every job completed`, {
        describeStall: () => stuck(admin, worker),
      });
      for (const job of jobs.slice(0, 5)) expect((await admin.getJob(job.id))?.status).toBe('completed');
      expect(exitedUnasked).toBeNull();
      expect(await child.stop()).toBe(0);
      child = undefined;
    }
  }, 900_000);
});

/** What a stall leaves to look at: the jobs not completed (state, owner, lease, run history) and the worker's last output. */
async function stuck(admin: QueueAdmin, child: ChildApp | undefined): Promise<string> {
  const rows = [];
  for (const status of ['pending', 'running', 'failed', 'cancelled'] as const)
    for (const job of await admin.getJobs('k', { status, limit: 5 }))
      rows.push(
        JSON.stringify({
          id: job.id,
          status: job.status,
          attempts: job.attempts,
          lockedBy: job.lockedBy,
          leaseUntil: job.leaseUntil,
          runAt: job.runAt,
          runs: (await admin.getJob(job.id))?.runs,
        }),
      );
  return `now ${new Date().toISOString()}\n${rows.join('\n')}\nworker stdout:\n${child?.stdout().slice(-3000)}\nworker stderr:\n${child?.stderr().slice(-3000)}`;
}
