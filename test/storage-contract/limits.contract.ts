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

  it('a shorter pause than the one in place keeps the longer, for the queue and for a group', async () => {
    for (let i = 0; i < 2; i++) await addJob(s.storage, 'lp');
    const [first, second] = await s.storage.claim([{ queue: 'lp', limit: 2 }], 'w', Date.now(), CONTRACT_LEASE);
    const long = Date.now() + 60_000;
    expect(await s.storage.rateLimit('lp', ref(first), 'w', long, Date.now())).toBe(true);
    // A second handler of the queue was told to wait less: the queue stays paused for the longer wait.
    expect(await s.storage.rateLimit('lp', ref(second), 'w', long - 50_000, Date.now())).toBe(true);
    expect((await s.storage.limitedUntil(['lp'], Date.now())).get('lp')).toBe(long);
    expect(await s.storage.claim([{ queue: 'lp', limit: 2 }], 'w', long - 40_000, CONTRACT_LEASE)).toEqual([]);

    for (let i = 0; i < 2; i++) await addJob(s.storage, 'gl', { group: 'a' });
    const [a1, a2] = await s.storage.claim([{ queue: 'gl', limit: 2, grouped: true }], 'w', Date.now(), CONTRACT_LEASE);
    expect(await s.storage.groupRateLimit('gl', 'a', ref(a1), 'w', long, Date.now())).toBe(true);
    expect(await s.storage.groupRateLimit('gl', 'a', ref(a2), 'w', long - 50_000, Date.now())).toBe(true);
    expect(await s.storage.groupOpensAt('gl', Date.now())).toBe(long);
  });

  it('a group limiter bounds each group per window and counts what the claim took; groupOpensAt names the end; forgetGroupWindows deletes ended rows', async () => {
    const now = Date.now();
    await s.storage.declareLimits([{ queue: 'gr', max: null, duration: null, groupMax: 2, groupDuration: 60_000 }], now);
    for (let i = 0; i < 3; i++) await addJob(s.storage, 'gr', { group: 'a' });
    await addJob(s.storage, 'gr', { group: 'b' });
    await addJob(s.storage, 'gr');
    const request = { queue: 'gr', limit: 10, grouped: true, groupRateLimited: true };
    const first = await s.storage.claim([request], 'w', Date.now(), CONTRACT_LEASE);
    expect(first.map((job) => job.group ?? null).sort()).toEqual(['a', 'a', 'b', null]);
    await addJob(s.storage, 'gr', { group: 'b' });
    // a's window is used up, b has one start left in its own.
    const second = await s.storage.claim([request], 'w', Date.now(), CONTRACT_LEASE);
    expect(second.map((job) => job.group)).toEqual(['b']);
    const opensAt = await s.storage.groupOpensAt('gr', Date.now());
    expect(opensAt).toBeGreaterThan(Date.now());
    expect(opensAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(await s.storage.groupOpensAt('gr', opensAt! + 1)).toBeNull();
    // Before the windows end nothing is forgotten; after, both groups' rows are.
    expect(await s.storage.forgetGroupWindows(Date.now(), 100)).toBe(0);
    expect(await s.storage.forgetGroupWindows(now + 120_000, 100)).toBe(2);
    // With the rows gone a's next claim opens a new window: the same bound again.
    expect(await s.storage.claim([request], 'w', Date.now(), CONTRACT_LEASE)).toHaveLength(1);
  });

  it('groupRateLimit pauses one group for every claim and hands the attempt back uncounted; false for a stale owner', async () => {
    await addJob(s.storage, 'gp', { group: 'a' });
    await addJob(s.storage, 'gp', { group: 'a' });
    await addJob(s.storage, 'gp', { group: 'b' });
    const [job] = await s.storage.claim([{ queue: 'gp', limit: 1, grouped: true }], 'w', Date.now(), CONTRACT_LEASE);
    expect(job.group).toBe('a');
    const until = Date.now() + 30_000;
    expect(await s.storage.groupRateLimit('gp', 'a', ref(job), 'other', until, Date.now())).toBe(false);
    expect(await s.storage.groupRateLimit('gp', 'a', ref(job), 'w', until, Date.now())).toBe(true);
    expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
    // Without a group limiter too: the claim leaves the paused group out, the other group goes on.
    const rest = await s.storage.claim([{ queue: 'gp', limit: 5, grouped: true }], 'w', Date.now(), CONTRACT_LEASE);
    expect(rest.map((claimed) => claimed.group)).toEqual(['b']);
    expect(await s.storage.groupOpensAt('gp', Date.now())).toBe(until);
    expect((await s.storage.explainFacts(job.id, Date.now()))?.groupLimitedUntil).toBe(until);
  });

  it('storedLimits: the declared limiters and the end of a RateLimitError pause; null for a queue without a row', async () => {
    const now = Date.now();
    expect(await s.storage.storedLimits('sl', now)).toBeNull();
    await s.storage.declareLimits([{ queue: 'sl', max: 3, duration: 1_000, groupMax: 2, groupDuration: 500 }], now);
    expect(await s.storage.storedLimits('sl', now)).toEqual({ max: 3, duration: 1_000, groupMax: 2, groupDuration: 500, limitedUntil: 0 });
    await s.storage.declareLimits([{ queue: 'sg', max: null, duration: null }], now);
    expect(await s.storage.storedLimits('sg', now)).toEqual({
      max: null,
      duration: null,
      groupMax: null,
      groupDuration: null,
      limitedUntil: 0,
    });
    const job = await addJob(s.storage, 'sl');
    const claimed = await claimOne(s.storage, 'sl', 'w');
    expect(claimed.id).toBe(job.id);
    const until = Date.now() + 60_000;
    expect(await s.storage.rateLimit('sl', ref(claimed), 'w', until, Date.now())).toBe(true);
    expect((await s.storage.storedLimits('sl', Date.now()))!.limitedUntil).toBe(until);
  });
});
