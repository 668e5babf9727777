/**
 * The storage contract of `EnqueueStorage.enqueueDependents`, `EnqueueStorage.enqueueGraph` and `FlowStorage.dependenciesOf`,
 * on every backend.
 */
import { JobNotFoundError } from '../../lib';
import { isWaitingRunAt } from '../../lib/storage/shared/flow-wait';
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, contractStorage, newJob, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: dependencies', (backend) => {
  const s = contractStorage(backend);

  it('enqueueDependents writes the edges: the dependent waits, dependenciesOf lists them, the last completion releases it', async () => {
    const now = Date.now();
    const [a, b] = await s.storage.enqueue('d', [newJob(), newJob()], now);
    const [plain, dependent] = await s.storage.enqueueDependents(
      'p',
      [newJob(), newJob({ dependsOn: [a.id, b.id], onDependencyFailure: 'fail' })],
      now,
    );
    expect(isWaitingRunAt((await s.storage.getJob(plain.id))!.runAt)).toBe(false);
    expect(isWaitingRunAt((await s.storage.getJob(dependent.id))!.runAt)).toBe(true);
    expect((await s.storage.dependenciesOf(dependent.id)).map((row) => row.id)).toEqual([a.id, b.id]);
    expect(await s.storage.dependenciesOf(plain.id)).toEqual([]);
    expect(await s.storage.dependenciesOf('not-an-id')).toEqual([]);

    const claimed = await s.storage.claim([{ queue: 'd', limit: 5 }], 'w', Date.now(), CONTRACT_LEASE);
    expect(claimed).toHaveLength(2);
    await s.storage.completeMany([{ ref: ref(claimed[0]), result: '1' }], 'w', Date.now());
    expect(isWaitingRunAt((await s.storage.getJob(dependent.id))!.runAt)).toBe(true);
    await s.storage.completeMany([{ ref: ref(claimed[1]), result: '2' }], 'w', Date.now());
    expect(isWaitingRunAt((await s.storage.getJob(dependent.id))!.runAt)).toBe(false);
    expect(await s.storage.dependenciesOf(dependent.id)).toEqual([
      { id: a.id, queue: 'd', status: 'completed', result: '1' },
      { id: b.id, queue: 'd', status: 'completed', result: '2' },
    ]);
  });

  it('enqueueDependents refuses an id no job has with JobNotFoundError and writes nothing', async () => {
    const now = Date.now();
    await expect(s.storage.enqueueDependents('p', [newJob(), newJob({ dependsOn: ['987654321'] })], now)).rejects.toBeInstanceOf(
      JobNotFoundError,
    );
    expect(await s.storage.getCounts('p')).toEqual([]);
  });

  it('enqueueGraph writes jobs of several queues with edges to earlier jobs of the graph and to existing jobs, in node order', async () => {
    const now = Date.now();
    const [existing] = await s.storage.enqueue('d', [newJob()], now);
    const ids = await s.storage.enqueueGraph(
      [
        { queue: 'd', job: newJob(), refs: [] },
        { queue: 'p', job: newJob({ dependsOn: [], onDependencyFailure: 'fail' }), refs: [0] },
        { queue: 'p', job: newJob({ dependsOn: [existing.id], onDependencyFailure: 'continue' }), refs: [0, 1] },
      ],
      now,
    );
    expect(ids).toHaveLength(3);
    const [first, second, third] = ids;
    expect(isWaitingRunAt((await s.storage.getJob(first))!.runAt)).toBe(false);
    expect(isWaitingRunAt((await s.storage.getJob(second))!.runAt)).toBe(true);
    expect((await s.storage.getJob(second))!.queue).toBe('p');
    expect((await s.storage.dependenciesOf(second)).map((row) => row.id)).toEqual([first]);
    expect((await s.storage.dependenciesOf(third)).map((row) => row.id).sort()).toEqual([existing.id, first, second].sort());

    const claimed = await s.storage.claim([{ queue: 'd', limit: 5 }], 'w', Date.now(), CONTRACT_LEASE);
    expect(claimed.map((job) => job.id).sort()).toEqual([existing.id, first].sort());
    await s.storage.completeMany(
      claimed.map((job) => ({ ref: ref(job), result: '1' })),
      'w',
      Date.now(),
    );
    expect(isWaitingRunAt((await s.storage.getJob(second))!.runAt)).toBe(false);
    expect(isWaitingRunAt((await s.storage.getJob(third))!.runAt)).toBe(true);
  });

  it('enqueueGraph refuses an id no job has with JobNotFoundError and writes nothing', async () => {
    const graph = [
      { queue: 'p', job: newJob(), refs: [] },
      { queue: 'p', job: newJob({ dependsOn: ['987654321'], onDependencyFailure: 'fail' }), refs: [0] },
    ];
    await expect(s.storage.enqueueGraph(graph, Date.now())).rejects.toBeInstanceOf(JobNotFoundError);
    expect(await s.storage.getCounts('p')).toEqual([]);
  });

  it('jobLinksOf lists both sides with totals past the limit, a deleted dependency as removed', async () => {
    const now = Date.now();
    const [a, b] = await s.storage.enqueue('d', [newJob(), newJob({ name: 'b' })], now);
    const [x, y] = await s.storage.enqueueDependents(
      'p',
      [newJob({ dependsOn: [a.id, b.id], onDependencyFailure: 'continue' }), newJob({ dependsOn: [a.id], onDependencyFailure: 'fail' })],
      now,
    );
    expect(await s.storage.jobLinksOf(a.id, 1)).toEqual({
      dependencies: [],
      dependencyCount: 0,
      dependents: [{ id: x.id, queue: 'p', name: null, status: 'pending' }],
      dependentCount: 2,
    });
    await s.storage.remove(b.id, Date.now());
    expect(await s.storage.jobLinksOf(x.id, 10)).toEqual({
      dependencies: [
        { id: a.id, queue: 'd', name: null, status: 'pending' },
        { id: b.id, queue: null, name: null, status: 'removed' },
      ],
      dependencyCount: 2,
      dependents: [],
      dependentCount: 0,
    });
    expect((await s.storage.jobLinksOf(y.id, 10)).dependencyCount).toBe(1);
    expect(await s.storage.jobLinksOf('not-an-id', 10)).toEqual({
      dependencies: [],
      dependencyCount: 0,
      dependents: [],
      dependentCount: 0,
    });
  });
});
