/**
 * The storage contract of a completion whose retention keeps nothing (`Completion.remove`): the completion deletes
 * the row, unless something still reads the finished row, on every backend.
 */
import { FLOW_WAIT_OFFSET, isWaitingRunAt } from '../../lib/storage/shared/flow-wait';
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage, newJob, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: completions that delete their row', (backend) => {
  const s = contractStorage(backend);

  it('completeMany deletes the rows marked remove and marks the others completed, in one batch; both count as owned', async () => {
    await addJob(s.storage, 'q');
    await addJob(s.storage, 'q');
    const [removed, kept] = await s.storage.claim([{ queue: 'q', limit: 2 }], 'w', Date.now(), CONTRACT_LEASE);
    const owned = await s.storage.completeMany(
      [
        { ref: ref(removed), result: '"gone"', remove: true },
        { ref: ref(kept), result: '"kept"' },
      ],
      'w',
      Date.now(),
    );
    expect([...owned].sort()).toEqual([removed.id, kept.id].sort());
    expect(await s.storage.getJob(removed.id)).toBeNull();
    expect(await s.storage.getJob(kept.id)).toMatchObject({ status: 'completed', result: '"kept"' });
    expect(await s.storage.getCounts('q')).toEqual([{ queue: 'q', status: 'completed', count: 1 }]);
  });

  it('a removing completion is fenced like any: another worker or an older attempt deletes nothing and owns nothing', async () => {
    const job = await addJob(s.storage, 'q');
    const claimed = await claimOne(s.storage, 'q', 'w');
    expect(await s.storage.completeMany([{ ref: ref(claimed), result: null, remove: true }], 'other', Date.now())).toEqual(new Set());
    const stale = { id: job.id, attempt: claimed.attempts - 1 };
    expect(await s.storage.completeMany([{ ref: stale, result: null, remove: true }], 'w', Date.now())).toEqual(new Set());
    expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'running' });
  });

  it('a flow child is marked completed, not deleted: its parent is released and reads its result', async () => {
    const now = Date.now();
    const [parent, child] = await s.storage.enqueueFlow(
      [
        { queue: 'p', job: newJob({ runAt: now + FLOW_WAIT_OFFSET }), parentIndex: -1, onChildFailure: 'fail' },
        { queue: 'c', job: newJob(), parentIndex: 0, onChildFailure: null },
      ],
      now,
    );
    const claimed = await claimOne(s.storage, 'c', 'w');
    expect(claimed.id).toBe(child);
    await s.storage.completeMany([{ ref: ref(claimed), result: '7', remove: true }], 'w', Date.now());
    expect(await s.storage.getJob(child)).toMatchObject({ status: 'completed', result: '7' });
    expect(isWaitingRunAt((await s.storage.getJob(parent))!.runAt)).toBe(false);
    expect((await s.storage.childrenOf(parent)).map((row) => [row.id, row.status, row.result])).toEqual([[child, 'completed', '7']]);
  });

  it('a dependency is marked completed, not deleted: its dependents are released as by a completion, never failed', async () => {
    const now = Date.now();
    const [dependency] = await s.storage.enqueue('d', [newJob()], now);
    const [dependent] = await s.storage.enqueueDependents('p', [newJob({ dependsOn: [dependency.id], onDependencyFailure: 'fail' })], now);
    const claimed = await claimOne(s.storage, 'd', 'w');
    await s.storage.completeMany([{ ref: ref(claimed), result: '1', remove: true }], 'w', Date.now());
    const released = await s.storage.getJob(dependent.id);
    expect(released).toMatchObject({ status: 'pending', error: null });
    expect(isWaitingRunAt(released!.runAt)).toBe(false);
    expect(await s.storage.dependenciesOf(dependent.id)).toEqual([{ id: dependency.id, queue: 'd', status: 'completed', result: '1' }]);
  });

  it('a throttled job inside its key window is marked completed, not deleted: the key stays taken', async () => {
    const now = Date.now();
    const first = await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: now + 60_000 }), now);
    const claimed = await claimOne(s.storage, 't', 'w');
    await s.storage.completeMany([{ ref: ref(claimed), result: null, remove: true }], 'w', Date.now());
    expect(await s.storage.getJob(first.id)).toMatchObject({ status: 'completed' });
    expect((await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: Date.now() + 60_000 }), Date.now())).id).toBe(first.id);
  });

  it('while some process waits for jobs to finish (its heartbeat is fresh), the row is marked completed, not deleted', async () => {
    await s.storage.markFinishWaiters!(Date.now());
    const job = await addJob(s.storage, 'q');
    const claimed = await claimOne(s.storage, 'q', 'w');
    await s.storage.completeMany([{ ref: ref(claimed), result: '"seen"', remove: true }], 'w', Date.now());
    expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'completed', result: '"seen"' });
    // Once the heartbeat is stale (15 s), completions delete again.
    await addJob(s.storage, 'q');
    const later = await claimOne(s.storage, 'q', 'w');
    await s.storage.completeMany([{ ref: ref(later), result: null, remove: true }], 'w', Date.now() + 16_000);
    expect(await s.storage.getJob(later.id)).toBeNull();
  });
});
