import {
  ChildFailedError,
  InvalidJobOptionsError,
  Job,
  JobStatus,
  ProcessorOptions,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueProducer,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { deferred, waitFor } from './support/wait-for';

/** What a test's handlers saw: each run, with the children's results a parent read. */
interface Seen {
  runs: { queue: string; id: string; at: number; results?: Record<string, unknown> }[];
}

function processors(seen: Seen, failing: Set<number> = new Set(), leafOptions: ProcessorOptions = {}) {
  const leaf = (queue: string) =>
    defineProcessor<{ n: number }>(
      queue,
      async (job: Job<{ n: number }>) => {
        seen.runs.push({ queue, id: job.id, at: Date.now() });
        if (failing.has(job.data.n)) throw new Error(`child ${job.data.n} fails`);
        return job.data.n * 10;
      },
      { concurrency: 8, maxAttempts: 1, ...leafOptions },
    );
  const parent = defineProcessor<{ name: string }>(
    'assemble',
    async (job: Job<{ name: string }>) => {
      const results = await job.getChildrenResults<number>();
      seen.runs.push({ queue: 'assemble', id: job.id, at: Date.now(), results });
      return Object.keys(results).length;
    },
    { concurrency: 2, maxAttempts: 1 },
  );
  return [leaf('fetch'), leaf('resize'), parent];
}

async function statusOf(admin: QueueAdmin, id: string): Promise<JobStatus | undefined> {
  return (await admin.getJob(id))?.status;
}

describeEachBackend('flows (addFlow)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('runs a parent exactly once, after the last of its 100 children in two queues, with all their results', async () => {
    const seen: Seen = { runs: [] };
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(seen) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('fetch');
    await admin.pause('resize');
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'album' },
      children: Array.from({ length: 100 }, (_, n) => ({ queue: n % 2 ? 'fetch' : 'resize', data: { n } })),
    });
    expect(parent.queue).toBe('assemble');
    const waiting = await admin.getJob(parent.id);
    expect(waiting?.status).toBe('pending');
    expect(waiting?.flow).toMatchObject({ parentId: null, pendingChildren: 100, waitingForChildren: true, onChildFailure: 'fail' });
    expect(waiting?.flow?.childrenIds).toHaveLength(100);
    expect(Math.abs(waiting!.runAt.getTime() - Date.now())).toBeLessThan(60_000);
    const child = await admin.getJob(waiting!.flow!.childrenIds[0]);
    expect(child?.flow).toMatchObject({ parentId: parent.id, childrenIds: [], pendingChildren: 0, waitingForChildren: false });

    await admin.resume('fetch');
    await admin.resume('resize');
    await waitFor(async () => (await statusOf(admin, parent.id)) === 'completed', 'the parent completed');
    const parentRuns = seen.runs.filter((run) => run.queue === 'assemble');
    expect(parentRuns).toHaveLength(1);
    const childRuns = seen.runs.filter((run) => run.queue !== 'assemble');
    expect(childRuns).toHaveLength(100);
    expect(seen.runs.indexOf(parentRuns[0])).toBe(100);
    const childIds = waiting!.flow!.childrenIds;
    const lastChildFinished = Math.max(...(await Promise.all(childIds.map(async (id) => (await admin.getJob(id))!.finishedAt!.getTime()))));
    const done = await admin.getJob(parent.id);
    expect(done!.startedAt!.getTime()).toBeGreaterThanOrEqual(lastChildFinished);
    expect(done?.result).toBe(100);
    const expected = Object.fromEntries(
      await Promise.all(childIds.map(async (id) => [id, ((await admin.getJob<{ n: number }>(id))!.data.n * 10) as number] as const)),
    );
    expect(parentRuns[0].results).toEqual(expected);
    expect(done?.flow).toMatchObject({ pendingChildren: 0, waitingForChildren: false });
  });

  it("fails the parent without running it when a child fails for good (onChildFailure 'fail'), through nested levels", async () => {
    const seen: Seen = { runs: [] };
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(seen, new Set([2])) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const root = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'root' },
      children: [
        { queue: 'fetch', data: { n: 1 } },
        {
          queue: 'assemble',
          data: { name: 'middle' },
          children: [
            { queue: 'resize', data: { n: 2 } },
            { queue: 'resize', data: { n: 3 } },
          ],
        },
      ],
    });
    await waitFor(async () => (await statusOf(admin, root.id)) === 'failed', 'the root failed');
    const info = await admin.getJob(root.id);
    expect(info?.error?.name).toBe(ChildFailedError.name);
    const middleId = info!.flow!.childrenIds[1];
    const middle = await admin.getJob(middleId);
    expect(middle?.status).toBe('failed');
    expect(middle?.error?.name).toBe(ChildFailedError.name);
    expect(middle?.error?.message).toContain('ended failed');
    expect(seen.runs.filter((run) => run.queue === 'assemble')).toEqual([]);
  });

  it("walks a failure up every 'fail' parent to the first 'continue' one, which runs once its other children have ended", async () => {
    const gate = deferred();
    const ran: string[] = [];
    const app = await current.startApp({
      module: { pollInterval: 100 },
      providers: [
        defineProcessor<{ n: number }>(
          'fetch',
          async (job) => {
            if (job.data.n === 1) throw new Error('child 1 fails');
            await gate.promise;
            return job.data.n * 10;
          },
          { concurrency: 2, maxAttempts: 1 },
        ),
        defineProcessor('assemble', async (job) => (ran.push(job.id), job.getChildrenResults()), { maxAttempts: 1 }),
      ],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const root = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'root' },
      onChildFailure: 'continue',
      children: [
        {
          queue: 'assemble',
          data: { name: 'middle' },
          children: [{ queue: 'assemble', data: { name: 'inner' }, children: [{ queue: 'fetch', data: { n: 1 } }] }],
        },
        { queue: 'fetch', data: { n: 2 } },
      ],
    });
    const [middleId, slowId] = (await admin.getJob(root.id))!.flow!.childrenIds;
    const innerId = (await admin.getJob(middleId))!.flow!.childrenIds[0];
    await waitFor(async () => (await statusOf(admin, middleId)) === 'failed', 'the middle parent failed');
    expect((await admin.getJob(innerId))?.error?.message).toContain('(queue fetch) ended failed');
    expect((await admin.getJob(middleId))?.error?.message).toContain(`Child job ${innerId} (queue assemble) ended failed`);
    await waitFor(async () => (await statusOf(admin, slowId)) === 'running', 'the slow child runs');
    expect(await statusOf(admin, root.id)).toBe('pending');
    gate.resolve();
    await waitFor(async () => (await statusOf(admin, root.id)) === 'completed', 'the root completed');
    expect(ran).toEqual([root.id]);
    expect((await admin.getJob(root.id))?.result).toEqual({ [slowId]: 20 });
  });

  it("runs the parent once every child has ended when onChildFailure is 'continue', with the completed children's results", async () => {
    const seen: Seen = { runs: [] };
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: processors(seen, new Set([1])) });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'tolerant' },
      onChildFailure: 'continue',
      children: [0, 1, 2].map((n) => ({ queue: 'fetch', data: { n } })),
    });
    await waitFor(async () => (await statusOf(admin, parent.id)) === 'completed', 'the parent completed');
    const [failed] = (await admin.getJob(parent.id))!.flow!.childrenIds.filter((_, index) => index === 1);
    expect(await statusOf(admin, failed)).toBe('failed');
    const parentRun = seen.runs.find((run) => run.queue === 'assemble');
    expect(Object.values(parentRun?.results ?? {}).sort()).toEqual([0, 20]);
  });

  it('keeps completed children that retention would remove until their parent has read their results', async () => {
    const seen: Seen = { runs: [] };
    const app = await current.startApp({
      module: { pollInterval: 100 },
      providers: processors(seen, new Set(), { removeOnComplete: true }),
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await admin.pause('assemble');
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'kept' },
      children: Array.from({ length: 20 }, (_, n) => ({ queue: 'fetch', data: { n } })),
    });
    await waitFor(() => seen.runs.length === 20, 'every child ran');
    await waitFor(async () => (await admin.getJob(parent.id))?.flow?.waitingForChildren === false, 'the parent is due');
    // Retention had every chance meanwhile: each completion asks for a pass.
    const plain = await producer.add('fetch', { n: 100 });
    await waitFor(async () => (await admin.getJob(plain.id)) === null, 'retention removed the plain job');
    expect((await admin.getCounts('fetch')).completed).toBe(20);
    await admin.resume('assemble');
    await waitFor(async () => (await statusOf(admin, parent.id)) === 'completed', 'the parent completed');
    expect(Object.keys(seen.runs.find((run) => run.queue === 'assemble')?.results ?? {})).toHaveLength(20);
    // The queue's next retention pass (after its next completion) removes them.
    await producer.add('fetch', { n: 101 });
    await waitFor(async () => (await admin.getCounts('fetch')).completed === 0, 'the children removed once the parent finished');
  });

  it('with clusterEvents, another process hears the cancelled event of every job a cascading cancel cancelled', async () => {
    const operator = await current.startApp({ module: { pollInterval: 100, processing: false, clusterEvents: true } });
    const listener = await current.startApp({ module: { pollInterval: 100, processing: false, clusterEvents: true } });
    const heard: QueueEvent[] = [];
    const events = listener.get(QueueEvents);
    const subscription = events.subscribe((event) => heard.push(event));
    await events.listening();
    const producer = operator.get(QueueProducer);
    // The operator publishes once it has seen a reader: an event of its own reaching the listener says it has.
    const probes = new Set<string>();
    await waitFor(
      async () => {
        probes.add((await producer.add('probe', {})).id);
        return heard.some((event) => event.type === 'added' && probes.has(event.jobId));
      },
      'the operator publishes its events',
      20_000,
      250,
    );
    const root = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'tree' },
      children: [{ queue: 'fetch', data: { n: 1 }, children: [{ queue: 'resize', data: { n: 2 } }] }],
    });
    const admin = operator.get(QueueAdmin);
    const middle = (await admin.getJob(root.id))!.flow!.childrenIds[0];
    const leaf = (await admin.getJob(middle))!.flow!.childrenIds[0];
    await admin.cancel(root.id, { cascade: true });
    const cancelledIds = () => heard.filter((event) => event.type === 'cancelled').map((event) => event.jobId);
    await waitFor(() => cancelledIds().length >= 3, 'the listener heard a cancelled event for each job of the tree');
    subscription.unsubscribe();
    expect(cancelledIds().sort()).toEqual([root.id, middle, leaf].sort());
    expect(heard.filter((event) => event.type === 'cancelled').every((event) => typeof event.origin === 'string')).toBe(true);
  });

  it('cancels and removes a whole tree with { cascade: true }, and a removed child no longer holds its parent', async () => {
    // A poll far beyond the test: a wait that ends, ends because the cancel told it.
    const app = await current.startApp({ module: { pollInterval: 600_000, processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const cancelled: QueueEvent[] = [];
    const subscription = app
      .get(QueueEvents)
      .on('cancelled')
      .subscribe((event) => cancelled.push(event));
    const flow = {
      queue: 'assemble',
      data: { name: 'tree' },
      children: [{ queue: 'fetch', data: { n: 1 }, children: [{ queue: 'resize', data: { n: 2 } }] }],
    };
    const first = await producer.addFlow(flow);
    const middle = (await admin.getJob(first.id))!.flow!.childrenIds[0];
    const leaf = (await admin.getJob(middle))!.flow!.childrenIds[0];
    const leafWait = admin.waitUntilFinished(leaf, { timeout: 20_000 });
    await admin.cancel(first.id, { cascade: true });
    expect([await statusOf(admin, first.id), await statusOf(admin, middle), await statusOf(admin, leaf)]).toEqual([
      'cancelled',
      'cancelled',
      'cancelled',
    ]);
    await expect(leafWait).resolves.toMatchObject({ id: leaf, status: 'cancelled' });
    // Every pending job of the tree announces its cancel, as the job itself does: nobody runs them to tell.
    await waitFor(() => cancelled.length >= 3, 'a cancelled event for each job of the tree');
    subscription.unsubscribe();
    expect(cancelled.map(({ type, queue, jobId, attempt }) => ({ type, queue, jobId, attempt }))).toEqual([
      { type: 'cancelled', queue: 'assemble', jobId: first.id, attempt: 0 },
      { type: 'cancelled', queue: 'fetch', jobId: middle, attempt: 0 },
      { type: 'cancelled', queue: 'resize', jobId: leaf, attempt: 0 },
    ]);
    await admin.remove(first.id, { cascade: true });
    expect([await admin.getJob(first.id), await admin.getJob(middle), await admin.getJob(leaf)]).toEqual([null, null, null]);

    const second = await producer.addFlow({ queue: 'assemble', data: { name: 'single' }, children: [{ queue: 'fetch', data: { n: 1 } }] });
    const only = (await admin.getJob(second.id))!.flow!.childrenIds[0];
    await admin.remove(only);
    const released = await admin.getJob(second.id);
    expect(released?.flow).toMatchObject({ waitingForChildren: false, pendingChildren: 0 });
  });

  it("stores each node's job name and per-job removal like add() does", async () => {
    const app = await current.startApp({ module: { pollInterval: 100, processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { name: 'named' },
      options: { name: 'publish' },
      children: [{ queue: 'fetch', data: { n: 1 }, options: { name: 'download', removeOnFail: true } }],
    });
    const info = await admin.getJob(parent.id);
    expect(info?.name).toBe('publish');
    const child = await admin.getJob(info!.flow!.childrenIds[0]);
    expect(child?.name).toBe('download');
    expect((await admin.getJobs('fetch', { name: 'download' })).map((job) => job.id)).toEqual([child!.id]);
    // Deleting a completed child at once would take its result from the parent.
    await expect(
      producer.addFlow({ queue: 'assemble', data: {}, children: [{ queue: 'fetch', data: {}, options: { removeOnComplete: true } }] }),
    ).rejects.toThrow(InvalidJobOptionsError);
  });

  it('announces every job of the tree as added, not only the parent', async () => {
    const app = await current.startApp({ module: { pollInterval: 100, processing: false } });
    const producer = app.get(QueueProducer);
    const added: string[] = [];
    const subscription = app.get(QueueEvents).subscribe((event) => {
      if (event.type === 'added') added.push(event.jobId);
    });
    try {
      const parent = await producer.addFlow({
        queue: 'assemble',
        data: {},
        children: [
          { queue: 'fetch', data: { n: 1 } },
          { queue: 'resize', data: { n: 2 } },
        ],
      });
      const { childrenIds } = (await app.get(QueueAdmin).getJob(parent.id))!.flow!;
      expect(added.sort()).toEqual([parent.id, ...childrenIds].sort());
    } finally {
      subscription.unsubscribe();
    }
  });

  it('refuses a bad flow with a typed error naming the node, and writes nothing', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const bad = { queue: 'assemble', data: {}, children: [{ queue: 'fetch', data: {}, options: { key: 'k' } }] } as never;
    await expect(producer.addFlow(bad)).rejects.toThrow(InvalidJobOptionsError);
    await expect(producer.addFlow(bad)).rejects.toThrow('flow.children[0].options.key');
    await expect(
      producer.addFlow({ queue: 'assemble', data: {}, children: [{ queue: 'fetch', data: {}, options: { delay: -1 } }] }),
    ).rejects.toThrow('flow.children[0].delay');
    await expect(producer.addFlow({ queue: 'assemble', data: {}, children: 'x' } as never)).rejects.toThrow(InvalidJobOptionsError);
    expect((await admin.getCounts()).pending).toBe(0);
  });
});
