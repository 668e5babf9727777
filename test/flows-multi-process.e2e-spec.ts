import { QueueAdmin, QueueProducer } from '../lib';
import { readRunLog, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp } from './support/backends';
import { waitFor } from './support/wait-for';
import { shortLeases } from './support/test-timings';

describeEachBackend('flows across OS processes', (backend) => {
  const current = perTestApp(backend);

  it('runs a parent of 100 children in two queues exactly once, after the last child, with all results, when a worker is killed -9 midway', async () => {
    const runLog = `${current.db.path}.runs`;
    // Opened first, so the schema is there before the workers boot: two boots migrating at once wait for each other
    // on SQLite's lock, and the short busy timeout is not meant to cover a migration.
    current.app = await current.startApp({ module: { processing: false } });
    const worker = () =>
      startChildApp({
        connection: current.db.options,
        runLog,
        // A short lease: the killed worker's children come back quickly.
        module: shortLeases(backend),
        queues: [
          { name: 'fetch', concurrency: 4 },
          { name: 'resize', concurrency: 4 },
          { name: 'assemble', concurrency: 1 },
        ],
      });
    const workers = [worker(), worker()];
    await Promise.all(workers.map((w) => w.printed('READY')));
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);

    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { collectChildren: true },
      children: Array.from({ length: 100 }, (_, n) => ({ queue: n % 2 ? 'fetch' : 'resize', data: { n, sleep: 30 } })),
    });
    await waitFor(
      () => readRunLog(runLog).filter((run) => run.pid === workers[0].process.pid).length >= 10,
      'the first worker ran 10 children',
    );
    await workers[0].kill();
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'the parent completed', 60_000, 50);
    await workers[1].stop();

    const runs = readRunLog(runLog);
    expect(runs.filter((run) => run.queue === 'assemble')).toHaveLength(1);
    const done = await admin.getJob<unknown, Record<string, number>>(parent.id);
    const childIds = done!.flow!.childrenIds;
    expect(childIds).toHaveLength(100);
    const children = await Promise.all(childIds.map(async (id) => (await admin.getJob<{ n: number }>(id))!));
    expect(children.every((child) => child.status === 'completed')).toBe(true);
    expect(done!.startedAt!.getTime()).toBeGreaterThanOrEqual(Math.max(...children.map((child) => child.finishedAt!.getTime())));
    expect(done?.result).toEqual(Object.fromEntries(children.map((child) => [child.id, child.data.n])));
  });
});
