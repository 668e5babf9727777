/** The storage contract of `EnqueueStorage.enqueueDependents` and `FlowStorage.dependenciesOf`, on every backend. */
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
});
