import {
  DependencyFailedError,
  InvalidJobOptionsError,
  Job,
  JobNotFoundError,
  JobStatus,
  JobWaitingForChildrenError,
  QueueAdmin,
  QueueProducer,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

/** What the handlers saw: each run, with the dependencies' results a dependent read. */
interface Run {
  queue: string;
  id: string;
  results?: Record<string, unknown>;
}

/** `fetch` and `resize` return n * 10 (or throw for n in `failing`); `report` reads its dependencies' results. */
function processors(runs: Run[], failing: Set<number> = new Set()) {
  const leaf = (queue: string) =>
    defineProcessor<{ n: number }>(
      queue,
      async (job: Job<{ n: number }>) => {
        runs.push({ queue, id: job.id });
        if (failing.has(job.data.n)) throw new Error(`job ${job.data.n} fails`);
        return job.data.n * 10;
      },
      { concurrency: 4, maxAttempts: 1 },
    );
  const report = defineProcessor<{ name: string }>(
    'report',
    async (job: Job<{ name: string }>) => {
      const results = await job.getDependencyResults<number>();
      runs.push({ queue: 'report', id: job.id, results });
      return Object.keys(results).length;
    },
    { concurrency: 2, maxAttempts: 1 },
  );
  return [leaf('fetch'), leaf('resize'), report];
}

async function statusOf(admin: QueueAdmin, id: string): Promise<JobStatus | undefined> {
  return (await admin.getJob(id))?.status;
}

describeEachBackend('job dependencies (dependsOn)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('runs a dependent once, after the last of its dependencies in two queues completed, with their results', async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('fetch');
    await admin.pause('resize');
    const a = await producer.add('fetch', { n: 1 });
    const b = await producer.add('resize', { n: 2 });
    const c = await producer.add('fetch', { n: 3 });
    const dependent = await producer.add('report', { name: 'r' }, { dependsOn: [a.id, b.id, c.id] });
    // A job of a queue nobody paused still waits: its dependencies are pending.
    await producer.add('report', { name: 'plain' });
    await waitFor(() => runs.some((run) => run.queue === 'report'), 'the plain report ran');
    expect(await statusOf(admin, dependent.id)).toBe('pending');
    expect(Math.abs((await admin.getJob(dependent.id))!.runAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(await admin.explain(dependent.id)).toMatchObject({ reason: 'waiting-for-dependencies', dependenciesLeft: [a.id, b.id, c.id] });

    await admin.resume('fetch');
    await waitFor(async () => (await statusOf(admin, c.id)) === 'completed', 'the fetches completed');
    expect(await statusOf(admin, dependent.id)).toBe('pending');
    const explained = await admin.explain(dependent.id);
    expect(explained).toMatchObject({ reason: 'waiting-for-dependencies', dependenciesLeft: [b.id] });
    expect(explained.detail).toContain(`(${b.id})`);
    const refused = (await admin.promote(dependent.id).catch((error: unknown) => error)) as JobWaitingForChildrenError;
    expect(refused).toBeInstanceOf(JobWaitingForChildrenError);
    expect(refused.waitingFor).toBe('dependencies');
    expect(refused.message).toContain('dependsOn');
    await admin.resume('resize');
    await waitFor(async () => (await statusOf(admin, dependent.id)) === 'completed', 'the dependent completed');
    const reports = runs.filter((run) => run.queue === 'report' && run.id === dependent.id);
    expect(reports).toEqual([{ queue: 'report', id: dependent.id, results: { [a.id]: 10, [b.id]: 20, [c.id]: 30 } }]);
    const done = await admin.getJob(dependent.id);
    const lastFinished = Math.max(
      ...(await Promise.all([a, b, c].map(async (job) => (await admin.getJob(job.id))!.finishedAt!.getTime()))),
    );
    expect(done!.startedAt!.getTime()).toBeGreaterThanOrEqual(lastFinished);
  });

  it("fails a dependent without running it when a dependency fails ('fail'), its own 'fail' dependents after it, and runs a 'continue' one", async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs, new Set([2])) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('resize');
    const ok = await producer.add('fetch', { n: 1 });
    const bad = await producer.add('resize', { n: 2 });
    const first = await producer.add('report', { name: 'first' }, { dependsOn: [ok.id, bad.id] });
    const second = await producer.add('report', { name: 'second' }, { dependsOn: [first.id] });
    const third = await producer.add('report', { name: 'third' }, { dependsOn: [second.id, ok.id], onDependencyFailure: 'continue' });
    await admin.resume('resize');
    await waitFor(async () => (await statusOf(admin, third.id)) === 'completed', 'the continue dependent completed');
    for (const [job, via] of [
      [first, bad],
      [second, first],
    ] as const) {
      const info = await admin.getJob(job.id);
      expect(info?.status).toBe('failed');
      expect(info?.error?.name).toBe(DependencyFailedError.name);
      expect(info?.error?.message).toContain(`Dependency job ${via.id} ended failed`);
    }
    const reports = runs.filter((run) => run.queue === 'report');
    expect(reports).toEqual([{ queue: 'report', id: third.id, results: { [ok.id]: 10 } }]);
  });

  it('resolves dependents by their policy when a dependency is cancelled or removed', async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('fetch');
    const cancelled = await producer.add('fetch', { n: 1 });
    const removed = await producer.add('fetch', { n: 2 });
    const failsOnCancel = await producer.add('report', { name: 'c' }, { dependsOn: [cancelled.id] });
    const failsOnRemove = await producer.add('report', { name: 'r' }, { dependsOn: [removed.id] });
    const runsAnyway = await producer.add(
      'report',
      { name: 'both' },
      { dependsOn: [cancelled.id, removed.id], onDependencyFailure: 'continue' },
    );
    await admin.cancel(cancelled.id);
    expect(await statusOf(admin, failsOnCancel.id)).toBe('failed');
    expect((await admin.getJob(failsOnCancel.id))?.error?.message).toContain(`Dependency job ${cancelled.id} ended cancelled`);
    expect(await statusOf(admin, runsAnyway.id)).toBe('pending');
    await admin.remove(removed.id);
    expect(await statusOf(admin, failsOnRemove.id)).toBe('failed');
    expect((await admin.getJob(failsOnRemove.id))?.error?.message).toContain(`Dependency job ${removed.id} ended removed`);
    await waitFor(async () => (await statusOf(admin, runsAnyway.id)) === 'completed', 'the continue dependent completed');
    expect(runs.filter((run) => run.queue === 'report')).toEqual([{ queue: 'report', id: runsAnyway.id, results: {} }]);
  });

  it('a dependent retried while its retried dependency is live waits for it again, then runs with its result (retry and retryAll)', async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('fetch');
    const dependency = await producer.add('fetch', { n: 1 });
    const byId = await producer.add('report', { name: 'by id' }, { dependsOn: [dependency.id] });
    const byQueue = await producer.add('report', { name: 'by queue' }, { dependsOn: [dependency.id] });
    await admin.cancel(dependency.id);
    expect(await statusOf(admin, byId.id)).toBe('failed');
    expect(await statusOf(admin, byQueue.id)).toBe('failed');

    // As the docs advise: the dependency first, then its dependents. The dependency is pending again (its queue paused).
    await admin.retry(dependency.id);
    await admin.retry(byId.id);
    expect(await admin.retryAll('report')).toBe(1);
    for (const dependent of [byId, byQueue]) {
      expect(await admin.explain(dependent.id)).toMatchObject({ reason: 'waiting-for-dependencies', dependenciesLeft: [dependency.id] });
    }
    await admin.resume('fetch');
    await waitFor(
      async () => (await statusOf(admin, byQueue.id)) === 'completed' && (await statusOf(admin, byId.id)) === 'completed',
      'both ran',
    );
    const reports = runs.filter((run) => run.queue === 'report');
    expect(reports.map((run) => run.results)).toEqual([{ [dependency.id]: 10 }, { [dependency.id]: 10 }]);
    expect(runs.findIndex((run) => run.id === dependency.id)).toBeLessThan(runs.indexOf(reports[0]));
  });

  it('fails a dense graph in one short statement: each job waits for all the jobs before it, the first is cancelled', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    // 300 jobs and 44,850 edges: a walk that went on from a job once per failed dependency of it took seconds here.
    const size = 300;
    const jobs = await producer.addGraph(
      Array.from({ length: size }, (_, i) => ({
        ref: `j${i}`,
        queue: 'report',
        data: { name: `j${i}` },
        options: i === 0 ? undefined : { dependsOn: Array.from({ length: i }, (_, k) => ({ ref: `j${k}` })) },
      })),
    );
    const started = Date.now();
    await admin.cancel(jobs[0].id);
    const took = Date.now() - started;
    expect(await admin.getCounts('report')).toMatchObject({ pending: 0, cancelled: 1, failed: size - 1 });
    // Each names the oldest of its dependencies that did not complete: the cancelled one, for all of them.
    for (const job of [jobs[1], jobs[size - 1]]) {
      expect((await admin.getJob(job.id))?.error?.message).toContain(`Dependency job ${jobs[0].id} ended cancelled`);
    }
    expect(took).toBeLessThan(2_000);
  });

  it('counts a dependency that ended before the add as it ended', async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs, new Set([2])) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const done = await producer.add('fetch', { n: 1 });
    const failed = await producer.add('fetch', { n: 2 });
    await waitFor(
      async () => (await statusOf(admin, failed.id)) === 'failed' && (await statusOf(admin, done.id)) === 'completed',
      'both ended',
    );
    const failsAtOnce = await producer.add('report', { name: 'f' }, { dependsOn: [done.id, failed.id] });
    expect(await statusOf(admin, failsAtOnce.id)).toBe('failed');
    expect((await admin.getJob(failsAtOnce.id))?.error?.name).toBe(DependencyFailedError.name);
    const [runsAtOnce, continues] = await producer.addBulk('report', [
      { data: { name: 'done' }, options: { dependsOn: [done.id] } },
      { data: { name: 'both' }, options: { dependsOn: [done.id, failed.id], onDependencyFailure: 'continue' } },
    ]);
    await waitFor(
      async () => (await statusOf(admin, runsAtOnce.id)) === 'completed' && (await statusOf(admin, continues.id)) === 'completed',
      'both dependents completed',
    );
    const reports = runs.filter((run) => run.queue === 'report').sort((x, y) => Number(x.id) - Number(y.id));
    expect(reports).toEqual([
      { queue: 'report', id: runsAtOnce.id, results: { [done.id]: 10 } },
      { queue: 'report', id: continues.id, results: { [done.id]: 10 } },
    ]);
  });

  it('adds several dependents in one addBulk, mixed with plain jobs, each released by its own dependencies', async () => {
    const runs: Run[] = [];
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('fetch');
    await admin.pause('resize');
    const a = await producer.add('fetch', { n: 1 });
    const b = await producer.add('resize', { n: 2 });
    const [onA, plain, onB] = await producer.addBulk('report', [
      { data: { name: 'a' }, options: { dependsOn: [a.id] } },
      { data: { name: 'plain' } },
      { data: { name: 'b' }, options: { dependsOn: [b.id] } },
    ]);
    await waitFor(async () => (await statusOf(admin, plain.id)) === 'completed', 'the plain job completed');
    await admin.resume('fetch');
    await waitFor(async () => (await statusOf(admin, onA.id)) === 'completed', 'the dependent on a completed');
    expect(await statusOf(admin, onB.id)).toBe('pending');
    await admin.resume('resize');
    await waitFor(async () => (await statusOf(admin, onB.id)) === 'completed', 'the dependent on b completed');
  });

  it('runs a batch callback once every job of the set has ended, with the counts of how they ended', async () => {
    const seen: { completed: number; other: number; byStatus: Record<string, number> }[] = [];
    // The callback reads the graph through the app's QueueAdmin, known once the app has started.
    const holder: { admin?: QueueAdmin } = {};
    const app = await current.startApp({
      module: { pollInterval: 100 },
      providers: [
        ...processors([], new Set([1, 3])),
        defineProcessor<{ ids: string[] }>(
          'batch-done',
          async (job: Job<{ ids: string[] }>) => {
            const completed = Object.keys(await job.getDependencyResults()).length;
            // As the docs' batch callback counts them: each dependency's status, a deleted one as removed.
            const byStatus: Record<string, number> = {};
            for (const dependency of (await holder.admin!.getJobDependencies(job.id, { limit: 1000 }))!.dependencies) {
              byStatus[dependency.status] = (byStatus[dependency.status] ?? 0) + 1;
            }
            seen.push({ completed, other: job.data.ids.length - completed, byStatus });
          },
          { maxAttempts: 1 },
        ),
      ],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    holder.admin = admin;
    await admin.pause('fetch');
    const batch = await producer.addBulk(
      'fetch',
      Array.from({ length: 5 }, (_, n) => ({ data: { n } })),
    );
    const ids = batch.map((job) => job.id);
    const callback = await producer.add('batch-done', { ids }, { dependsOn: ids, onDependencyFailure: 'continue' });
    await admin.remove(ids[4]);
    expect(await statusOf(admin, callback.id)).toBe('pending');
    await admin.resume('fetch');
    await waitFor(async () => (await statusOf(admin, callback.id)) === 'completed', 'the batch callback completed');
    expect(seen).toEqual([{ completed: 2, other: 3, byStatus: { completed: 2, failed: 2, removed: 1 } }]);
  });

  it('refuses bad dependencies with a typed error and writes nothing', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const existing = await producer.add('fetch', { n: 1 });
    const refused: [unknown, string][] = [
      ['1', 'dependsOn'],
      [[], 'dependsOn'],
      [[1], 'dependsOn[0]'],
      [['x'], 'dependsOn[0]'],
      [['01'], 'dependsOn[0]'],
      [[existing.id, existing.id], 'dependsOn[1]'],
      [Array.from({ length: 1001 }, (_, i) => String(i + 1)), 'dependsOn'],
      // A sparse array's holes are items too: skipped, they would leave a job waiting for none of what was named.
      [new Array(3), 'dependsOn[0]'],
      [Object.assign(new Array(2), { 0: existing.id }), 'dependsOn[1]'],
    ];
    for (const [dependsOn, field] of refused) {
      const add = producer.add('report', {}, { dependsOn } as never);
      await expect(add).rejects.toThrow(InvalidJobOptionsError);
      await expect(producer.add('report', {}, { dependsOn } as never)).rejects.toThrow(field);
    }
    await expect(producer.add('report', {}, { onDependencyFailure: 'continue' })).rejects.toThrow('onDependencyFailure');
    await expect(producer.add('report', {}, { dependsOn: [existing.id], onDependencyFailure: 'skip' } as never)).rejects.toThrow(
      InvalidJobOptionsError,
    );
    await expect(producer.add('report', {}, { dependsOn: [existing.id], key: 'k' })).rejects.toThrow(InvalidJobOptionsError);
    await expect(
      producer.addFlow({ queue: 'report', data: {}, children: [{ queue: 'fetch', data: {}, options: { dependsOn: [existing.id] } }] }),
    ).rejects.toThrow('flow.children[0].options.dependsOn');
    const unknown = producer.add('report', {}, { dependsOn: [existing.id, '987654321'] });
    await expect(unknown).rejects.toThrow(JobNotFoundError);
    await expect(producer.addBulk('report', [{ data: {} }, { data: {}, options: { dependsOn: ['987654321'] } }])).rejects.toThrow(
      JobNotFoundError,
    );
    // A hole in a bulk is an item that is not { data }, named, not a write the database refuses.
    const holed = Object.assign(new Array<{ data: unknown; options?: object }>(2), {
      1: { data: {}, options: { dependsOn: [existing.id] } },
    });
    const holedError = await producer.addBulk('report', holed).catch((error: unknown) => error);
    expect(holedError).toBeInstanceOf(InvalidJobOptionsError);
    expect(holedError).toMatchObject({ option: 'items[0]' });
    const counts = await admin.getCounts();
    expect(counts.pending).toBe(1);
    expect((await admin.getJob(existing.id))?.status).toBe('pending');
  });
});
