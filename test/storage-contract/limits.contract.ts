/** The storage contract of `LimitStorage`, on every backend. */
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: limits', (backend) => {
  const s = contractStorage(backend);

  it('declareLimits: a rate-limited claim takes no more than the window allows, and limitedUntil names its end', async () => {
    const now = Date.now();
    await s.storage.declareLimits([{ queue: 'r', max: 2, duration: 60_000 }], now);
    for (let i = 0; i < 3; i++) await addJob(s.storage, 'r');
    await addJob(s.storage, 'free');
    const claimed = await s.storage.claim([{ queue: 'r', limit: 3, rateLimited: true }], 'w', Date.now(), CONTRACT_LEASE);
    expect(claimed).toHaveLength(2);
    const until = await s.storage.limitedUntil(['r', 'free'], Date.now());
    expect([...until.keys()]).toEqual(['r']);
    expect(until.get('r')).toBeGreaterThan(Date.now());
    expect(until.get('r')).toBeLessThanOrEqual(now + 60_000 + 1_000);
    expect(await s.storage.claim([{ queue: 'r', limit: 3, rateLimited: true }], 'w', Date.now(), CONTRACT_LEASE)).toEqual([]);
  });

  it('a global concurrency caps the running jobs of a queue across claims', async () => {
    await s.storage.declareLimits([{ queue: 'g', max: null, duration: null }], Date.now());
    for (let i = 0; i < 3; i++) await addJob(s.storage, 'g');
    const first = await s.storage.claim([{ queue: 'g', limit: 3, globalConcurrency: 2 }], 'a', Date.now(), CONTRACT_LEASE);
    expect(first).toHaveLength(2);
    expect(await s.storage.claim([{ queue: 'g', limit: 3, globalConcurrency: 2 }], 'b', Date.now(), CONTRACT_LEASE)).toEqual([]);
  });

  it('rateLimit pauses the queue until the given time and hands the attempt back uncounted; false for a stale owner', async () => {
    await addJob(s.storage, 'q');
    const job = await claimOne(s.storage, 'q', 'w');
    const until = Date.now() + 30_000;
    expect(await s.storage.rateLimit('q', ref(job), 'other', until, Date.now())).toBe(false);
    expect(await s.storage.rateLimit('q', ref(job), 'w', until, Date.now())).toBe(true);
    expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
    expect((await s.storage.limitedUntil(['q'], Date.now())).get('q')).toBe(until);
    expect(await s.storage.claim([{ queue: 'q', limit: 1, rateLimited: true }], 'w', Date.now(), CONTRACT_LEASE)).toEqual([]);
    // Past the pause, the queue is claimable again.
    expect(await s.storage.limitedUntil(['q'], until + 1)).toEqual(new Map());
  });
});
