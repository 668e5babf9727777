/** The storage contract of `GroupStorage`, and of the grouped claim (`ClaimRequest.grouped`), on every backend. */
import { GroupClaimCursors } from '../../lib/poller/group-claim-cursors';
import { ClaimRequest, JobRecord } from '../../lib/storage/queue-storage.interface';
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, contractStorage, newJob, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: groups', (backend) => {
  const s = contractStorage(backend);
  /** Claims as the poller does: each grouped queue's walk starts after the groups its previous claim served. */
  let cursors = new GroupClaimCursors();
  beforeEach(() => (cursors = new GroupClaimCursors()));
  async function claimAsPoller(requests: ClaimRequest[]): Promise<JobRecord[]> {
    const walked = cursors.apply(requests);
    const jobs = await s.storage.claim(walked, 'w', Date.now(), CONTRACT_LEASE);
    cursors.advance(walked, jobs);
    return jobs;
  }

  it('a grouped claim ranks each group first job before any group next one, and bounds a group running jobs', async () => {
    await addJob(s.storage, 'g', { group: 'big' });
    // A job without a group takes its turn once it is among the queue's next `limit` due jobs in plain order.
    const loose = await addJob(s.storage, 'g');
    for (let i = 0; i < 3; i++) await addJob(s.storage, 'g', { group: 'big' });
    const small = await addJob(s.storage, 'g', { group: 'small' });
    const request = { queue: 'g', limit: 3, grouped: true, groupConcurrency: 2 };
    const first = await claimAsPoller([request]);
    // big's first, small's first, and the job without a group (one more group) before big's second.
    expect(first.map((job) => job.group).sort()).toEqual(['big', null, 'small'].sort());
    expect(first.map((job) => job.id)).toEqual(expect.arrayContaining([small.id, loose.id]));
    // big has one running of two: one more turn, then none.
    const second = await claimAsPoller([request]);
    expect(second.map((job) => job.group)).toEqual(['big']);
    expect(await claimAsPoller([request])).toEqual([]);
  });

  it('a grouped claim reads a bounded window of groups that moves round after round, so every group comes into it', async () => {
    // The queue's oldest jobs belong to one group held at its group concurrency, so the queue's head in plain order
    // offers nothing claimable: every job claimed comes from the walk of the groups.
    for (let i = 0; i < 20; i++) await addJob(s.storage, 'w', { group: 'aaa' });
    const request = { queue: 'w', limit: 10, grouped: true, groupConcurrency: 1 };
    expect((await s.storage.claim([{ ...request, limit: 1 }], 'w', Date.now(), CONTRACT_LEASE)).map((job) => job.group)).toEqual(['aaa']);
    // Then 100 groups, more than a round's window (the limit, the busy groups and 64 more), of two jobs each: every
    // group's first job, then every group's second. Each round's jobs complete before the next claim, so every group
    // is idle again: a window that stayed at the first groups would serve their second jobs next.
    const group = (i: number) => `g${String(i).padStart(3, '0')}`;
    await s.storage.enqueue(
      'w',
      Array.from({ length: 200 }, (_, i) => newJob({ group: group(i % 100) })),
      Date.now(),
    );
    const served = new Set<string>();
    for (let round = 0; round < 10; round++) {
      const claimed = await claimAsPoller([request]);
      expect(claimed).toHaveLength(10);
      for (const job of claimed) served.add(job.group as string);
      await s.storage.completeMany(
        claimed.map((job) => ({ ref: ref(job), result: null })),
        'w',
        Date.now(),
      );
    }
    // Ten rounds of ten: each group once before any group twice.
    expect(served.size).toBe(100);
  });

  it('a grouped claim whose round reaches the last group wraps to the first, and the next round goes on after the groups it took', async () => {
    // As above, the head in plain order offers nothing claimable: every job claimed comes from the walk of the groups.
    for (let i = 0; i < 20; i++) await addJob(s.storage, 'r', { group: 'aaa' });
    const request = { queue: 'r', limit: 7, grouped: true, groupConcurrency: 1 };
    expect((await s.storage.claim([{ ...request, limit: 1 }], 'w', Date.now(), CONTRACT_LEASE)).map((job) => job.group)).toEqual(['aaa']);
    // 100 groups of three jobs, claimed seven at a time: the 15th round takes g098 and g099, then wraps to g000-g004,
    // and the 16th must start after g004 (a cursor left at g099 serves g000-g004 a third time before g010 a second).
    const group = (i: number) => `g${String(i).padStart(3, '0')}`;
    await s.storage.enqueue(
      'r',
      Array.from({ length: 300 }, (_, i) => newJob({ group: group(i % 100) })),
      Date.now(),
    );
    const served = new Map<string, number>();
    for (let round = 1; round <= 20; round++) {
      const claimed = await claimAsPoller([request]);
      expect({ round, claimed: claimed.length }).toEqual({ round, claimed: 7 });
      for (const job of claimed) served.set(job.group as string, (served.get(job.group as string) ?? 0) + 1);
      await s.storage.completeMany(
        claimed.map((job) => ({ ref: ref(job), result: null })),
        'w',
        Date.now(),
      );
      // Round robin across the wrap: no group is served twice more than another.
      const counts = Array.from({ length: 100 }, (_, i) => served.get(group(i)) ?? 0);
      expect({ round, spread: Math.max(...counts) - Math.min(...counts) }).toEqual({ round, spread: 1 });
    }
    // 140 jobs: every group once, g000-g039 twice.
    expect([served.get('g000'), served.get('g039'), served.get('g040'), served.get('g099')]).toEqual([2, 2, 1, 1]);
  });

  it('a grouped claim serves a group whose first job is delayed by its first due one, and walks past a group with none due', async () => {
    const later = Date.now() + 3_600_000;
    // Group a's first job in claim order (the highest priority) is not due: its due job of lower priority is its turn.
    await addJob(s.storage, 'd', { group: 'a', priority: 5, runAt: later });
    await addJob(s.storage, 'd', { group: 'a', priority: 5, runAt: later + 1 });
    const aDue = await addJob(s.storage, 'd', { group: 'a', priority: 1 });
    // Group b has nothing due; group c has a due job behind it in name order.
    await addJob(s.storage, 'd', { group: 'b', runAt: later });
    const cDue = await addJob(s.storage, 'd', { group: 'c' });
    const claimed = await s.storage.claim([{ queue: 'd', limit: 5, grouped: true, groupConcurrency: 1 }], 'w', Date.now(), CONTRACT_LEASE);
    expect(claimed.map((job) => job.id).sort()).toEqual([aDue.id, cDue.id].sort());
  });

  it('groupCounts (also of one name), listGroupJobs and busiestGroups read one queue groups', async () => {
    const a1 = await addJob(s.storage, 'q', { group: 'a', name: 'x' });
    const a2 = await addJob(s.storage, 'q', { group: 'a' });
    await addJob(s.storage, 'q', { group: 'b' });
    await addJob(s.storage, 'other', { group: 'a' });
    await s.storage.claim([{ queue: 'q', limit: 2, grouped: true }], 'w', Date.now(), CONTRACT_LEASE);
    const counts = await s.storage.groupCounts('q', 'a');
    // The running row claimed and not started is in `running` and in `claimed` (the reader takes it out of running).
    expect(Object.fromEntries(counts.map((row) => [row.status, row.count]))).toEqual({ running: 1, claimed: 1, pending: 1 });
    // With a name: that name's jobs of the group only.
    const named = await s.storage.groupCounts('q', 'a', 'x');
    const byStatus = named.filter((row) => row.status !== 'claimed');
    expect(byStatus.map((row) => ({ queue: row.queue, count: row.count }))).toEqual([{ queue: 'q', count: 1 }]);
    expect(byStatus[0].status).toBe((await s.storage.getJob(a1.id))!.status);
    // Claimed by the claim above (no start written), it is also in the name's `claimed` row.
    expect(named.filter((row) => row.status === 'claimed').map((row) => row.count)).toEqual(byStatus[0].status === 'running' ? [1] : []);
    expect(await s.storage.groupCounts('q', 'a', 'nope')).toEqual([]);
    const query = { limit: 10, offset: 0 };
    expect((await s.storage.listGroupJobs('q', 'a', query)).map((job) => job.id)).toEqual([a2.id, a1.id]);
    expect((await s.storage.listGroupJobs('q', 'a', { ...query, name: 'x' })).map((job) => job.id)).toEqual([a1.id]);
    expect((await s.storage.listGroupJobs('q', 'a', { ...query, status: 'running' })).map((job) => job.group)).toEqual(['a']);
    expect(await s.storage.busiestGroups('q', 10)).toEqual([
      { group: 'a', running: 1, pending: 1 },
      { group: 'b', running: 1, pending: 0 },
    ]);
    expect(await s.storage.busiestGroups('q', 1)).toHaveLength(1);
  });
});
