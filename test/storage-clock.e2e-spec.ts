/**
 * The storage's timing logic on an injected clock, on every backend: every storage method takes `now`, so a rate
 * window, a lease's end and the recovery jitter are checked at the instants that matter, to the millisecond,
 * instead of being waited for. The files about processes keep their claims about processes (ten processes sharing
 * one limiter: queue-limits-processes.e2e-spec.ts; a job that kills its process, and the job claimed beside it:
 * crash-recovery-poison.e2e-spec.ts); the timing those claims rest on is pinned down here.
 *
 * The instants are ahead of the real clock: SQLite sets a claim's lease from the database's own clock (so the
 * lease test reads the lease each row got, and claims at the real time).
 */
import { describeEachBackend } from './support/backends';
import { CONTRACT_LEASE, addJob, contractStorage } from './support/storage-contract';

describeEachBackend('storage timing on an injected clock', (backend) => {
  const s = contractStorage(backend);

  it('a rate window is fixed from its first claim: max claims in it across claims, none until it ends, then a new one', async () => {
    const max = 3;
    const duration = 10_000;
    const t0 = Date.now() + 1000;
    await s.storage.declareLimits([{ queue: 'r', max, duration }], t0);
    for (let i = 0; i < 3 * max; i++) await addJob(s.storage, 'r');
    const claim = async (now: number, limit = 10) =>
      (await s.storage.claim([{ queue: 'r', limit, rateLimited: true }], 'w', now, CONTRACT_LEASE)).length;

    // The window opens at its first claim; a second claim in it (another process's) gets what is left of max.
    expect(await claim(t0, 2)).toBe(2);
    expect(await claim(t0 + duration - 1)).toBe(max - 2);
    expect(await claim(t0 + duration - 1)).toBe(0);
    expect((await s.storage.limitedUntil(['r'], t0 + duration - 1)).get('r')).toBe(t0 + duration);
    // Its last millisecond is t0 + duration - 1: the next claim opens a window of its own, max again.
    expect(await s.storage.limitedUntil(['r'], t0 + duration)).toEqual(new Map());
    const t1 = t0 + duration + 250;
    expect(await claim(t1)).toBe(max);
    // That window starts at its own first claim (t1), not where the last one ended: fixed windows, never sliding.
    expect(await claim(t1 + duration - 1)).toBe(0);
    expect((await s.storage.limitedUntil(['r'], t1)).get('r')).toBe(t1 + duration);
    expect(await claim(t1 + duration)).toBe(max);
  });

  it('a lease is taken back only after its last millisecond; jobs taken back together are spread over the jitter window', async () => {
    const count = 20;
    const lease = 5000;
    const jitter = 10_000;
    for (let i = 0; i < count; i++) await addJob(s.storage, 'q');
    const t0 = Date.now();
    const claimed = await s.storage.claim([{ queue: 'q', limit: count }], 'dead', t0, lease);
    expect(claimed).toHaveLength(count);
    const leaseUntil = Math.max(...(await Promise.all(claimed.map(async (job) => (await s.storage.getJob(job.id))!.leaseUntil!))));
    expect(leaseUntil).toBeGreaterThanOrEqual(t0 + lease);

    // At the lease's last millisecond nothing is taken back: its owner may still renew it.
    expect(await s.storage.recoverExpiredLeases(leaseUntil, jitter)).toEqual([]);
    const now = leaseUntil + 1;
    const recovered = await s.storage.recoverExpiredLeases(now, jitter);
    expect(recovered).toHaveLength(count);
    const due = recovered.map((job) => job.runAt).sort((a, b) => a - b);
    for (const at of due) {
      expect(at).toBeGreaterThanOrEqual(now);
      expect(at).toBeLessThan(now + jitter);
    }
    // Drawn per job, not once for all: twenty uniform draws fall within a quarter of the window with probability
    // 20 * 0.25^19, about 7e-11. One delay for every job would be a spread of 0.
    expect(due[count - 1] - due[0]).toBeGreaterThan(jitter / 4);

    // Each is claimable from its own due time on, and not before: claimed apart, as they were drawn.
    const claimAt = async (at: number) => (await s.storage.claim([{ queue: 'q', limit: count }], 'next', at, lease)).length;
    const middle = due[Math.floor(count / 2)];
    expect(await claimAt(middle - 1)).toBe(due.filter((at) => at <= middle - 1).length);
    expect(await claimAt(due[count - 1] - 1)).toBe(due.filter((at) => at > middle - 1 && at <= due[count - 1] - 1).length);
    expect(await claimAt(due[count - 1])).toBe(due.filter((at) => at === due[count - 1]).length);
  });
});
