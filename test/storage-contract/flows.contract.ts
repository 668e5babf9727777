/** The storage contract of `FlowStorage` and `EnqueueStorage.enqueueFlow`, on every backend. */
import { FLOW_WAIT_OFFSET } from '../../lib/storage/shared/flow-wait';
import { NewFlowNode } from '../../lib/storage/queue-storage.interface';
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, claimOne, contractStorage, newJob, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: flows', (backend) => {
  const s = contractStorage(backend);

  /** A root (queue p) waiting for two children (queue c), the first of which has a child of its own (queue g). */
  function tree(now: number): NewFlowNode[] {
    const waiting = now + FLOW_WAIT_OFFSET;
    return [
      { queue: 'p', job: newJob({ runAt: waiting }), parentIndex: -1, onChildFailure: 'fail' },
      { queue: 'c', job: newJob({ runAt: waiting, data: '{"n":1}' }), parentIndex: 0, onChildFailure: 'fail' },
      { queue: 'c', job: newJob({ data: '{"n":2}' }), parentIndex: 0, onChildFailure: null },
      { queue: 'g', job: newJob(), parentIndex: 1, onChildFailure: null },
    ];
  }

  it('enqueueFlow inserts the tree in node order; getFlow and childrenOf see parent, children and results', async () => {
    const now = Date.now();
    const ids = await s.storage.enqueueFlow(tree(now), now);
    expect(ids).toHaveLength(4);
    const [root, first, second, leaf] = ids;
    expect(await s.storage.getFlow(root)).toEqual({
      parentId: null,
      onChildFailure: 'fail',
      children: [
        { id: first, status: 'pending' },
        { id: second, status: 'pending' },
      ],
    });
    expect(await s.storage.getFlow(leaf)).toEqual({ parentId: first, onChildFailure: null, children: [] });
    expect(await s.storage.getFlow('999999')).toBeNull();

    // Only the leaf and the second child are due; completing the second shows its result among the root's children.
    const claimed = await s.storage.claim([{ queue: 'c', limit: 5 }], 'w', Date.now(), CONTRACT_LEASE);
    expect(claimed.map((job) => job.id)).toEqual([second]);
    expect(await s.storage.completeMany([{ ref: ref(claimed[0]), result: '{"ok":2}' }], 'w', Date.now())).toEqual(new Set([second]));
    const children = await s.storage.childrenOf(root);
    expect(children).toEqual([
      { id: first, queue: 'c', status: 'pending', result: null },
      { id: second, queue: 'c', status: 'completed', result: '{"ok":2}' },
    ]);
    expect(await s.storage.childrenOf(leaf)).toEqual([]);
  });

  it('cancelDescendants cancels every live descendant and returns each, saying which were running', async () => {
    const now = Date.now();
    const [root, first, second, leaf] = await s.storage.enqueueFlow(tree(now), now);
    const running = await claimOne(s.storage, 'g', 'w');
    expect(running.id).toBe(leaf);
    const cancelled = await s.storage.cancelDescendants(root, Date.now());
    expect(cancelled).toEqual(
      [first, second, leaf].map((id) => expect.objectContaining({ id, running: id === leaf, attempt: id === leaf ? 1 : 0 })),
    );
    expect(cancelled.find((job) => job.id === leaf)?.queue).toBe('g');
    for (const id of [first, second, leaf]) expect((await s.storage.getJob(id))?.status).toBe('cancelled');
    expect(await s.storage.cancelDescendants(root, Date.now())).toEqual([]);
  });

  it('removeTree deletes a job and its descendants at once, or nothing while one of them runs', async () => {
    const now = Date.now();
    const [root, first, second, leaf] = await s.storage.enqueueFlow(tree(now), now);
    await claimOne(s.storage, 'g', 'w');
    expect(await s.storage.removeTree(root)).toEqual({ running: leaf });
    for (const id of [root, first, second, leaf]) expect(await s.storage.getJob(id)).not.toBeNull();

    const [other] = await s.storage.enqueueFlow(tree(now), now);
    expect(await s.storage.removeTree(other)).toEqual({ removed: 4 });
    expect(await s.storage.getJob(other)).toBeNull();
    expect(await s.storage.removeTree(other)).toBeNull();
  });
});
