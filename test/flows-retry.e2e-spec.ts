/**
 * `retry` / `retryAll` of a flow parent that was cancelled (or failed by a child) while children of it still run:
 * it goes back to waiting for them, and runs once after the last, with their results. A parent whose children have
 * all ended runs at once. Children are held running by handlers that wait on a signal the test gives.
 */
import { Job, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { describeEachBackend, itWhen, perTestApp, MIGRATED } from './support/backends';
import { openSideTransaction } from './support/postgres-side-transaction';
import { deferred, waitFor } from './support/wait-for';

interface ChildData {
  n: number;
  fail?: boolean;
}

describeEachBackend('retry of a flow parent whose children still run', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  /** Handler starts and ends, in order; each `work` child runs until the test releases it by its `n`. */
  async function start() {
    const events: string[] = [];
    const gates = new Map<number, ReturnType<typeof deferred>>();
    const gate = (n: number) => {
      if (!gates.has(n)) gates.set(n, deferred());
      return gates.get(n)!;
    };
    const work = defineProcessor<ChildData>(
      'work',
      async (job: Job<ChildData>) => {
        events.push(`start ${job.id}`);
        if (job.data.fail) throw new Error(`child ${job.data.n} fails`);
        await gate(job.data.n).promise;
        events.push(`end ${job.id}`);
        return job.data.n * 10;
      },
      { concurrency: 4, maxAttempts: 1 },
    );
    const assemble = defineProcessor(
      'assemble',
      async (job: Job) => {
        const results = await job.getChildrenResults<number>();
        events.push(`parent ${job.id} ${JSON.stringify(results)}`);
        return results;
      },
      { concurrency: 1, maxAttempts: 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [work, assemble] });
    return { admin: app.get(QueueAdmin), producer: app.get(QueueProducer), events, release: (n: number) => gate(n).resolve(undefined) };
  }

  async function flowOf(admin: QueueAdmin, id: string) {
    const job = await admin.getJob(id);
    return { status: job?.status, waiting: job?.flow?.waitingForChildren, pending: job?.flow?.pendingChildren };
  }

  it('a parent cancelled (without cascade) while its children run waits for them again when retried, then runs once after the last', async () => {
    const { admin, producer, events, release } = await start();
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'work', data: { n: 1 } },
        { queue: 'work', data: { n: 2 } },
      ],
    });
    const [first, second] = (await admin.getJob(parent.id))!.flow!.childrenIds;
    await waitFor(() => events.includes(`start ${first}`) && events.includes(`start ${second}`), 'both children run');

    await admin.cancel(parent.id);
    await admin.retry(parent.id);
    expect(await flowOf(admin, parent.id)).toEqual({ status: 'pending', waiting: true, pending: 2 });

    release(1);
    await waitFor(async () => (await admin.getJob(first))?.status === 'completed', 'the first child completed');
    expect(await flowOf(admin, parent.id)).toEqual({ status: 'pending', waiting: true, pending: 1 });

    release(2);
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'the parent completed');
    const runs = events.filter((event) => event.startsWith('parent'));
    expect(runs).toEqual([`parent ${parent.id} ${JSON.stringify({ [first]: 10, [second]: 20 })}`]);
    expect(events.indexOf(runs[0])).toBeGreaterThan(events.indexOf(`end ${second}`));
  });

  it('a cancelled parent whose children have all ended since runs at once when retried, with their results', async () => {
    const { admin, producer, events, release } = await start();
    const parent = await producer.addFlow({ queue: 'assemble', data: {}, children: [{ queue: 'work', data: { n: 1 } }] });
    const [child] = (await admin.getJob(parent.id))!.flow!.childrenIds;
    await waitFor(() => events.includes(`start ${child}`), 'the child runs');
    await admin.cancel(parent.id);
    release(1);
    await waitFor(async () => (await admin.getJob(child))?.status === 'completed', 'the child completed');
    expect((await admin.getJob(parent.id))?.status).toBe('cancelled');

    await admin.retry(parent.id);
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'the parent completed');
    expect(events.filter((event) => event.startsWith('parent'))).toEqual([`parent ${parent.id} ${JSON.stringify({ [child]: 10 })}`]);
  });

  it('retryAll of a parent that a failed child failed waits for the sibling still running, then runs', async () => {
    const { admin, producer, events, release } = await start();
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'work', data: { n: 1, fail: true } },
        { queue: 'work', data: { n: 2 } },
      ],
    });
    const [failing, running] = (await admin.getJob(parent.id))!.flow!.childrenIds;
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'failed', 'the failed child failed the parent');
    await waitFor(() => events.includes(`start ${running}`), 'the other child runs');
    expect((await admin.getJob(failing))?.status).toBe('failed');

    expect(await admin.retryAll('assemble')).toBe(1);
    expect(await flowOf(admin, parent.id)).toEqual({ status: 'pending', waiting: true, pending: 1 });

    release(2);
    await waitFor(async () => (await admin.getJob(parent.id))?.status === 'completed', 'the parent completed');
    expect(events.filter((event) => event.startsWith('parent'))).toEqual([`parent ${parent.id} ${JSON.stringify({ [running]: 20 })}`]);
  });

  // PostgreSQL runs transactions side by side: a child's ending not yet committed when retry's statement starts
  // found the parent finished and left it; the retry must see that ending (it waits for the child's row) or the
  // parent would wait for a child that is done, for ever.
  itWhen(backend.kind === 'postgres').each(['COMMIT', 'ROLLBACK'] as const)(
    "retry of a cancelled parent while its last child's completion is uncommitted: after its %s the parent is due, or waits",
    async (end) => {
      const app = await current.startApp({ module: { processing: false } });
      const admin = app.get(QueueAdmin);
      const parent = await app.get(QueueProducer).addFlow({ queue: 'assemble', data: {}, children: [{ queue: 'work', data: { n: 1 } }] });
      const [child] = (await admin.getJob(parent.id))!.flow!.childrenIds;
      await admin.cancel(parent.id);
      const side = await openSideTransaction(current.db.options);
      try {
        await side.query(`UPDATE ${side.jobs} SET status = 'completed', finished_at = $2, updated_at = $2 WHERE id = $1`, [
          child,
          Date.now(),
        ]);
        const retrying = admin.retry(parent.id).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        await side.untilWaitedOn(retrying);
        await side.end(end);
        expect(await retrying).toBeUndefined();
      } finally {
        await side.close();
      }
      const expected = end === 'COMMIT' ? { waiting: false, pending: 0 } : { waiting: true, pending: 1 };
      expect(await flowOf(admin, parent.id)).toEqual({ status: 'pending', ...expected });
    },
  );
});
