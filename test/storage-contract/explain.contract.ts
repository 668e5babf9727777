/** The storage contract of `ExplainStorage`, on every backend. */
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage } from '../support/storage-contract';

describeEachBackend('Storage contract: explain', (backend) => {
  const s = contractStorage(backend);

  it('explainFacts: the job, its queue state and the live running count in one read; null for no such job', async () => {
    const now = Date.now();
    const held = await addJob(s.storage, 'x');
    await claimOne(s.storage, 'x', 'w1');
    const waiting = await addJob(s.storage, 'x');
    await s.storage.setPaused('x', true, now);
    await s.storage.announceProcessors(['x'], now + 60_000, now);
    await s.storage.declareLimits([{ queue: 'x', max: 1, duration: 60_000 }], now);
    const facts = await s.storage.explainFacts(waiting.id, Date.now());
    expect(facts).toMatchObject({ paused: true, runningLive: 1, childrenLeft: 0, processorUntil: now + 60_000 });
    expect(facts?.job).toMatchObject({ id: waiting.id, status: 'pending', queue: 'x' });
    // The running job's lease counts until it expires.
    expect((await s.storage.explainFacts(held.id, Date.now() + CONTRACT_LEASE + 1_000))?.runningLive).toBe(0);
    expect(await s.storage.explainFacts('999999', Date.now())).toBeNull();
    expect(await s.storage.explainFacts('nope', Date.now())).toBeNull();
  });

  it('explainFacts counts the live running jobs of the job group (what a group concurrency counts), 0 without a group', async () => {
    await addJob(s.storage, 'gx', { group: 'a' });
    await addJob(s.storage, 'gx', { group: 'b' });
    await s.storage.claim([{ queue: 'gx', limit: 2, grouped: true }], 'w1', Date.now(), CONTRACT_LEASE);
    const waiting = await addJob(s.storage, 'gx', { group: 'a' });
    const loose = await addJob(s.storage, 'gx');
    expect(await s.storage.explainFacts(waiting.id, Date.now())).toMatchObject({ runningLive: 2, groupRunningLive: 1 });
    expect(await s.storage.explainFacts(loose.id, Date.now())).toMatchObject({ runningLive: 2, groupRunningLive: 0 });
    expect((await s.storage.explainFacts(waiting.id, Date.now() + CONTRACT_LEASE + 1_000))?.groupRunningLive).toBe(0);
  });
});
