/**
 * Dependencies added together (`QueueProducer.addGraph`): jobs of several queues that wait for jobs of the same call
 * (`{ ref }`) and for jobs that existed before, written in one statement; cycles refused with DependencyCycleError,
 * every bad graph refused with a typed error, writing nothing; the failure policies within a graph; the caller's
 * transaction.
 */
import {
  DependencyCycleError,
  DependencyFailedError,
  InvalidArgumentError,
  InvalidJobOptionsError,
  Job,
  JobNotFoundError,
  JobStatus,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
} from '../lib';
import { AppConnection, appConnection, rolledBack } from './support/app-connection';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

/** A handler's run: which job, when it started and ended, and the dependency results it read. */
interface Run {
  id: string;
  started: number;
  ended: number;
  results: Record<string, unknown>;
}

/** `g-step` and `g-sum` jobs: each records its run, fails when its data says so, and returns n plus its dependencies' results. */
function processors(runs: Map<string, Run>) {
  const handler = async (job: Job<{ n: number; fail?: boolean }>) => {
    const started = Date.now();
    const results = await job.getDependencyResults<number>();
    // A little time, so a dependent that started early would overlap its dependency's run.
    await new Promise((resolve) => setImmediate(resolve));
    runs.set(job.id, { id: job.id, started, ended: Date.now(), results });
    if (job.data.fail) throw new Error(`job ${job.data.n} fails`);
    return job.data.n + Object.values(results).reduce((sum, value) => sum + value, 0);
  };
  return [
    defineProcessor('g-step', handler, { concurrency: 4, maxAttempts: 1 }),
    defineProcessor('g-sum', handler, { concurrency: 4, maxAttempts: 1 }),
  ];
}

async function statusOf(admin: QueueAdmin, id: string): Promise<JobStatus | undefined> {
  return (await admin.getJob(id))?.status;
}

async function totalJobs(admin: QueueAdmin): Promise<number> {
  let total = 0;
  for (const queue of ['g-step', 'g-sum']) total += Object.values(await admin.getCounts(queue)).reduce((sum, n) => sum + n, 0);
  return total;
}

describeEachBackend('dependencies added together (addGraph)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('writes a fan-in across queues in one call; each job runs after every job it depends on, with their results', async () => {
    const runs = new Map<string, Run>();
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('g-step');
    const before = await producer.add('g-step', { n: 1000 });
    // Given dependents first: the call orders them after what they depend on.
    const jobs = await producer.addGraph<{ n: number }, number>([
      { ref: 'total', queue: 'g-sum', data: { n: 0 }, options: { dependsOn: [{ ref: 'left' }, { ref: 'right' }, before.id] } },
      { ref: 'left', queue: 'g-step', data: { n: 1 } },
      { ref: 'right', queue: 'g-sum', data: { n: 2 }, options: { dependsOn: [{ ref: 'left' }] } },
    ]);
    expect(jobs.map((job) => job.queue)).toEqual(['g-sum', 'g-step', 'g-sum']);
    expect(jobs.map((job) => job.data.n)).toEqual([0, 1, 2]);
    const [total, left, right] = jobs;
    expect(await admin.explain(total.id)).toMatchObject({
      reason: 'waiting-for-dependencies',
      dependenciesLeft: [before.id, left.id, right.id].sort((a, b) => Number(a) - Number(b)),
    });
    expect(await admin.explain(right.id)).toMatchObject({ reason: 'waiting-for-dependencies', dependenciesLeft: [left.id] });

    await admin.resume('g-step');
    await waitFor(async () => (await statusOf(admin, total.id)) === 'completed', 'the total completed');
    // left = 1, right = 2 + 1, total = 0 + 1000 + 1 + 3.
    expect((await admin.getJob(right.id))!.result).toBe(3);
    expect((await admin.getJob(total.id))!.result).toBe(1004);
    expect(runs.get(total.id)!.results).toEqual({ [before.id]: 1000, [left.id]: 1, [right.id]: 3 });
    expect(runs.get(right.id)!.started).toBeGreaterThanOrEqual(runs.get(left.id)!.ended);
    expect(runs.get(total.id)!.started).toBeGreaterThanOrEqual(Math.max(runs.get(right.id)!.ended, runs.get(before.id)!.ended));
  });

  it("resolves a graph's dependents by their policy: 'fail' fails the chain without running it, 'continue' runs", async () => {
    const runs = new Map<string, Run>();
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: processors(runs) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const [bad, middle, last, ok, after] = await producer.addGraph([
      { ref: 'bad', queue: 'g-step', data: { n: 1, fail: true } },
      { ref: 'middle', queue: 'g-sum', data: { n: 2 }, options: { dependsOn: [{ ref: 'bad' }] } },
      { ref: 'last', queue: 'g-sum', data: { n: 3 }, options: { dependsOn: [{ ref: 'middle' }] } },
      { ref: 'ok', queue: 'g-step', data: { n: 4 } },
      {
        ref: 'after',
        queue: 'g-sum',
        data: { n: 5 },
        options: { dependsOn: [{ ref: 'last' }, { ref: 'ok' }], onDependencyFailure: 'continue' },
      },
    ]);
    await waitFor(async () => (await statusOf(admin, after.id)) === 'completed', "the 'continue' job completed");
    expect(await statusOf(admin, bad.id)).toBe('failed');
    for (const skipped of [middle, last]) {
      const info = (await admin.getJob(skipped.id))!;
      expect(info.status).toBe('failed');
      expect(info.error?.name).toBe(DependencyFailedError.name);
      expect(runs.has(skipped.id)).toBe(false);
    }
    expect((await admin.getJob(after.id))!.result).toBe(5 + 4);
    expect(runs.get(after.id)!.results).toEqual({ [ok.id]: 4 });
  });

  it('refuses cycles with DependencyCycleError naming them, and every malformed graph with a typed error, writing nothing', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const existing = await producer.add('g-step', { n: 0 });
    const cycle = (await errorOf(() =>
      producer.addGraph([
        { ref: 'free', queue: 'g-step', data: null },
        { ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'c' }, { ref: 'free' }] } },
        { ref: 'b', queue: 'g-sum', data: null, options: { dependsOn: [{ ref: 'a' }] } },
        { ref: 'c', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'b' }, existing.id] } },
      ]),
    )) as DependencyCycleError;
    expect(cycle).toBeInstanceOf(DependencyCycleError);
    expect([...cycle.cycle].sort()).toEqual(['a', 'b', 'c']);
    expect(cycle.message).toContain('cycle');
    // A job that only leads into a cycle is not on it: the error names the cycle alone.
    const tail = (await errorOf(() =>
      producer.addGraph([
        { ref: 'lead', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'x' }] } },
        { ref: 'x', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'y' }] } },
        { ref: 'y', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'x' }] } },
      ]),
    )) as DependencyCycleError;
    expect(tail).toBeInstanceOf(DependencyCycleError);
    expect([...tail.cycle].sort()).toEqual(['x', 'y']);

    const refusals: [unknown, string][] = [
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'a' }] } }], 'jobs[0].options.dependsOn[0]'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'nope' }] } }], 'jobs[0].options.dependsOn[0]'],
      [
        [
          { ref: 'a', queue: 'g-step', data: null },
          { ref: 'a', queue: 'g-step', data: null },
        ],
        'jobs[1].ref',
      ],
      [
        [
          { ref: 'a', queue: 'g-step', data: null },
          { ref: 'b', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'a' }, { ref: 'a' }] } },
        ],
        'jobs[1].options.dependsOn[1]',
      ],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { key: 'k' } }], 'jobs[0].options.key'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { onDependencyFailure: 'continue' } }], 'jobs[0].options.onDependencyFailure'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [{ ref: 'a', extra: 1 }] } }], 'jobs[0].options.dependsOn[0]'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: ['x1'] } }], 'jobs[0].options.dependsOn[0]'],
      [[{ ref: '', queue: 'g-step', data: null }], 'jobs[0].ref'],
      [[{ ref: 'r'.repeat(129), queue: 'g-step', data: null }], 'jobs[0].ref'],
      // As add() refuses them: an existing job named twice, and an empty list.
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [existing.id, existing.id] } }], 'jobs[0].options.dependsOn[1]'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: [] } }], 'jobs[0].options.dependsOn'],
      [[{ ref: 'a', queue: 'g-step' }], 'jobs[0].data'],
      // Holes in a sparse array are jobs and dependencies too, refused by name, not skipped.
      [Object.assign(new Array(2), { 1: { ref: 'a', queue: 'g-step', data: null } }), 'jobs[0]'],
      [[{ ref: 'a', queue: 'g-step', data: null, options: { dependsOn: new Array(1) } }], 'jobs[0].options.dependsOn[0]'],
      [[{ ref: 'a', queue: 'g-step', data: null, children: [] }], 'jobs[0].children'],
      // An empty array has no key to refuse: it must not pass as "no options".
      [[{ ref: 'a', queue: 'g-step', data: null, options: [] }], 'jobs[0].options'],
      [[], 'jobs'],
      // 1,000 jobs, then 101 that each wait for all of them: 101,000 dependencies, over the 100,000 of one graph.
      [
        [
          ...Array.from({ length: 1000 }, (_, i) => ({ ref: `d${i}`, queue: 'g-step', data: null })),
          ...Array.from({ length: 101 }, (_, i) => ({
            ref: `w${i}`,
            queue: 'g-step',
            data: null,
            options: { dependsOn: Array.from({ length: 1000 }, (_, d) => ({ ref: `d${d}` })) },
          })),
        ],
        'jobs',
      ],
    ];
    for (const [jobs, option] of refusals) {
      const error = (await errorOf(() => producer.addGraph(jobs as never))) as InvalidJobOptionsError;
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect(error.option).toBe(option);
    }
    const missing = await errorOf(() =>
      producer.addGraph([
        { ref: 'a', queue: 'g-step', data: null },
        { ref: 'b', queue: 'g-sum', data: null, options: { dependsOn: [{ ref: 'a' }, '987654321'] } },
      ]),
    );
    expect(missing).toBeInstanceOf(JobNotFoundError);
    expect(await totalJobs(admin)).toBe(1);
  });

  it("writes the whole graph in the caller's transaction: nothing after a rollback, all of it after the commit", async () => {
    const runs = new Map<string, Run>();
    connection = await appConnection(current);
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 50 })],
      providers: processors(runs),
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const { dataSource } = connection;
    const graph = () => [
      { ref: 'a', queue: 'g-step', data: { n: 1 } },
      { ref: 'b', queue: 'g-sum', data: { n: 2 }, options: { dependsOn: [{ ref: 'a' }] } },
    ];
    await rolledBack(dataSource, (manager) => producer.addGraph(graph(), { manager }));
    expect(await totalJobs(admin)).toBe(0);
    const [, b] = await dataSource.transaction((manager) => producer.addGraph<{ n: number }>(graph(), { manager }));
    await waitFor(async () => (await statusOf(admin, b.id)) === 'completed', 'the graph ran after the commit');
    expect((await admin.getJob(b.id))!.result).toBe(3);
  });

  it('getJobDependencies lists the graph around a job both ways, with statuses, totals, removed dependencies and a limit', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const gone = await producer.add('g-step', { n: 0 }, { name: 'gone' });
    const [root, a, b, sink] = await producer.addGraph([
      { ref: 'root', queue: 'g-step', data: { n: 1 }, options: { name: 'root' } },
      { ref: 'a', queue: 'g-sum', data: { n: 2 }, options: { dependsOn: [{ ref: 'root' }] } },
      { ref: 'b', queue: 'g-sum', data: { n: 3 }, options: { dependsOn: [{ ref: 'root' }] } },
      {
        ref: 'sink',
        queue: 'g-sum',
        data: { n: 4 },
        options: { dependsOn: [{ ref: 'a' }, { ref: 'b' }, gone.id], onDependencyFailure: 'continue' },
      },
    ]);
    expect(await admin.getJobDependencies(root.id)).toEqual({
      dependencies: [],
      dependencyCount: 0,
      dependents: [
        { id: a.id, queue: 'g-sum', name: null, status: 'pending' },
        { id: b.id, queue: 'g-sum', name: null, status: 'pending' },
      ],
      dependentCount: 2,
    });
    await admin.remove(gone.id);
    const sinkLinks = (await admin.getJobDependencies(sink.id))!;
    expect(sinkLinks.dependencyCount).toBe(3);
    expect(sinkLinks.dependencies).toEqual(
      expect.arrayContaining([
        { id: gone.id, queue: null, name: null, status: 'removed' },
        { id: a.id, queue: 'g-sum', name: null, status: 'pending' },
        { id: b.id, queue: 'g-sum', name: null, status: 'pending' },
      ]),
    );
    expect(sinkLinks.dependents).toEqual([]);
    const limited = (await admin.getJobDependencies(sink.id, { limit: 1 }))!;
    expect(limited.dependencies).toHaveLength(1);
    expect(limited.dependencyCount).toBe(3);
    const middle = (await admin.getJobDependencies(a.id))!;
    expect(middle.dependencies).toEqual([{ id: root.id, queue: 'g-step', name: 'root', status: 'pending' }]);
    expect(middle.dependents.map((job) => job.id)).toEqual([sink.id]);
    // A plain job has an empty graph; no job has none.
    const plain = await producer.add('g-step', { n: 9 });
    expect(await admin.getJobDependencies(plain.id)).toEqual({ dependencies: [], dependencyCount: 0, dependents: [], dependentCount: 0 });
    expect(await admin.getJobDependencies('987654321')).toBeNull();
    expect(await admin.getJobDependencies('nope')).toBeNull();
    for (const limit of [0, 1001, 1.5]) {
      expect(await errorOf(() => admin.getJobDependencies(sink.id, { limit }))).toBeInstanceOf(InvalidArgumentError);
    }
    expect(await errorOf(() => admin.getJobDependencies(sink.id, { depth: 2 } as never))).toBeInstanceOf(InvalidArgumentError);
  });
});
