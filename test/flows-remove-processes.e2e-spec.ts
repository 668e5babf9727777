/**
 * `remove(parent, { cascade: true })` while a worker in another OS process claims what becomes due. Deleting a
 * flow's children makes its parent due; if that and the parent's own delete are two statements, the other
 * process claims the parent in between and the call ends refused with the children gone. Made deterministic by
 * waiting, after each statement the call sends, until the other process has had its chance: the parent is gone,
 * still not due, or no longer pending (claimed, perhaps run already).
 */
import { InvalidJobStateError, QueueAdmin, QueueProducer } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { isWaitingRunAt } from '../lib/storage/shared/flow-wait';
import { ChildApp, readRunLog, startChildApp } from './support/child-app';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { betweenStatements } from './support/statement-hook';
import { waitFor } from './support/wait-for';

describeEachBackend('remove({ cascade: true }) of a flow while another process works its queues', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let worker: ChildApp | undefined;

  afterEach(async () => {
    // kill -9: a job of the test hangs for ever, and nothing here is about a clean shutdown.
    await worker?.kill();
    worker = undefined;
  });

  async function start(queues: string[]) {
    const runLog = `${current.db.path}.runs`;
    worker = startChildApp({
      connection: current.db.options,
      runLog,
      module: { pollInterval: 50 },
      queues: queues.map((name) => ({ name, concurrency: 4 })),
    });
    await worker.printed('READY');
    current.app = await current.startApp({ module: { processing: false } });
    const storage = await current.app.get(QueueRuntime).storage();
    return { admin: current.app.get(QueueAdmin), producer: current.app.get(QueueProducer), storage, runLog };
  }

  // One test, two flows: starting the other process is most of its time.
  it('deletes a parent and its 5 children in one decision (the other process never claims the parent), and refuses, deleting nothing, while a child runs there', async () => {
    // 'held' has no worker: those children stay pending, and their parent waits for them.
    const { admin, producer, storage, runLog } = await start(['assemble', 'work']);
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: { collectChildren: true },
      children: Array.from({ length: 5 }, (_, n) => ({ queue: 'held', data: { n } })),
    });
    const children = (await admin.getJob(parent.id))!.flow!.childrenIds;
    expect(children).toHaveLength(5);

    const unhook = betweenStatements(storage, () =>
      waitFor(
        async () => {
          const record = await storage.getJob(parent.id);
          return record === null || record.status !== 'pending' || isWaitingRunAt(record.runAt);
        },
        'the parent is gone, still waiting for its children, or taken by the other process',
        10_000,
      ),
    );
    try {
      await admin.remove(parent.id, { cascade: true });
    } finally {
      unhook();
    }
    expect(await Promise.all([parent.id, ...children].map((id) => admin.getJob(id)))).toEqual(Array(6).fill(null));
    expect(readRunLog(runLog).filter((run) => run.queue === 'assemble')).toEqual([]);

    const busy = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'work', data: { hang: true } },
        { queue: 'held', data: { n: 1 } },
      ],
    });
    const busyChildren = (await admin.getJob(busy.id))!.flow!.childrenIds;
    await waitFor(() => readRunLog(runLog).some((run) => run.queue === 'work'), 'the other process runs the first child');
    const error = await admin.remove(busy.id, { cascade: true }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(InvalidJobStateError);
    expect(error).toMatchObject({ jobId: busyChildren[0], status: 'running', operation: 'remove' });
    const left = await Promise.all([busy.id, ...busyChildren].map((id) => admin.getJob(id)));
    expect(left.map((job) => job?.status)).toEqual(['pending', 'running', 'pending']);
  });
});
