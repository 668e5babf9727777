/** The storage contract of `KeyedEnqueueStorage`, `DeadLetterStorage` and `SnoozeStorage` (schema step 10), on every backend. */
import { describeEachBackend } from '../support/backends';
import { CONTRACT_LEASE, addJob, claimOne, contractStorage, newJob, ref } from '../support/storage-contract';

describeEachBackend('Storage contract: keys, dead letters, snoozes', (backend) => {
  const s = contractStorage(backend);

  it('enqueueKeyed: a throttled key inside its window returns its holder, even finished; a debounced add replaces the unstarted job', async () => {
    const now = Date.now();
    const first = await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: now + 60_000 }), now);
    const job = await claimOne(s.storage, 't', 'w');
    expect((await s.storage.completeMany([{ ref: ref(job), result: null }], 'w', Date.now())).has(first.id)).toBe(true);
    expect((await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: Date.now() + 60_000 }), Date.now())).id).toBe(first.id);

    const a = await s.storage.enqueueKeyed('d', newJob({ key: 'x', debounce: true, data: '{"n":1}' }), Date.now());
    const b = await s.storage.enqueueKeyed('d', newJob({ key: 'x', debounce: true, data: '{"n":2}' }), Date.now());
    expect(b.id).toBe(a.id);
    expect(await s.storage.getJob(a.id)).toMatchObject({ data: '{"n":2}', key: 'x', status: 'pending' });
  });

  it("debounceKeyHolder: the other unstarted debounced job of a cancelled debounced job's key; null for the holder and plain jobs", async () => {
    const cancelled = await s.storage.enqueueKeyed('d', newJob({ key: 'x', debounce: true, data: '{"n":1}' }), Date.now());
    expect(await s.storage.cancel(cancelled.id, Date.now())).toBe('pending');
    const holder = await s.storage.enqueueKeyed('d', newJob({ key: 'x', debounce: true, data: '{"n":2}' }), Date.now());
    expect(holder.id).not.toBe(cancelled.id);
    expect(await s.storage.debounceKeyHolder(cancelled.id)).toMatchObject({ id: holder.id, key: 'x', status: 'pending' });
    expect(await s.storage.debounceKeyHolder(holder.id)).toBeNull();
    const plain = await addJob(s.storage, 'd');
    expect(await s.storage.debounceKeyHolder(plain.id)).toBeNull();
    expect(await s.storage.debounceKeyHolder('987654')).toBeNull();
  });

  it('declareDeadLetters, redrive, deadLetterQueues: a job failed for good is dead-lettered; redrive moves it back', async () => {
    await s.storage.declareDeadLetters([{ queue: 'src', deadLetter: 'dead' }], Date.now());
    await addJob(s.storage, 'src', { maxAttempts: 1 });
    const job = await claimOne(s.storage, 'src', 'w');
    expect(await s.storage.fail(ref(job), 'w', '{"name":"Error","message":"no","attempt":1}', Date.now())).toBe(true);
    expect(await s.storage.deadLetterQueues()).toEqual([{ queue: 'dead', sources: ['src'], count: 1 }]);
    expect(await s.storage.redrive('dead', 10, Date.now())).toBe(1);
    expect(await s.storage.deadLetterQueues()).toEqual([{ queue: 'dead', sources: ['src'], count: 0 }]);
    const redriven = await claimOne(s.storage, 'src', 'w');
    expect(redriven).toMatchObject({ attempts: 1, queue: 'src' });
  });

  it('snooze: back to pending unspent, counted; exhausted at the bound; lost for a stale owner', async () => {
    await addJob(s.storage, 'z');
    const job = await claimOne(s.storage, 'z', 'w');
    const at = Date.now() + 1000;
    expect(await s.storage.snooze(ref(job), 'other', { runAt: at, delay: 1000 }, 5, Date.now())).toBe('lost');
    expect(await s.storage.snooze(ref(job), 'w', { runAt: at, delay: 1000 }, 5, Date.now())).toBe('snoozed');
    expect(await s.storage.getJob(job.id)).toMatchObject({ status: 'pending', attempts: 0, snoozes: 1, runAt: at });
    // Not due before its snooze ends.
    expect(await s.storage.claim([{ queue: 'z', limit: 1 }], 'w', Date.now(), CONTRACT_LEASE)).toEqual([]);
    await addJob(s.storage, 'y');
    const other = await claimOne(s.storage, 'y', 'w');
    expect(await s.storage.snooze(ref(other), 'w', { runAt: Date.now(), delay: 0 }, 0, Date.now())).toBe('exhausted');
  });
});
