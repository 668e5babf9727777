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

  it('enqueueKeyed: once a throttle window closed while its job still waits, the pending job still holds the key and is returned', async () => {
    // The first add took the key 10 s ago with a 1 s window: the window is over, the job never ran.
    const then = Date.now() - 10_000;
    const first = await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: then + 1000, data: '{"n":1}' }), then);
    const again = await s.storage.enqueueKeyed('t', newJob({ key: 'k', keyUntil: Date.now() + 1000, data: '{"n":2}' }), Date.now());
    expect(again).toMatchObject({ id: first.id, status: 'pending' });
    expect(await s.storage.getJob(first.id)).toMatchObject({ data: '{"n":1}', status: 'pending' });
    expect(await s.storage.getCounts('t')).toEqual([{ queue: 't', status: 'pending', count: 1 }]);
  });

  it('enqueueKeyed: once a throttle window closed while its job runs, the running job still holds the key and is returned', async () => {
    // Took the key 10 s ago with a 1 s window; claimed, and still running now.
    const then = Date.now() - 10_000;
    const first = await s.storage.enqueueKeyed('t-run', newJob({ key: 'k', keyUntil: then + 1000, data: '{"n":1}' }), then);
    expect((await claimOne(s.storage, 't-run', 'w')).id).toBe(first.id);
    const again = await s.storage.enqueueKeyed('t-run', newJob({ key: 'k', keyUntil: Date.now() + 1000, data: '{"n":2}' }), Date.now());
    expect(again).toMatchObject({ id: first.id, status: 'running' });
    expect(await s.storage.getJob(first.id)).toMatchObject({ data: '{"n":1}', status: 'running' });
    // Nothing was enqueued beside it (counts list a claimed job not yet started under its own status too).
    expect((await s.storage.getCounts('t-run')).filter((row) => row.status === 'pending')).toEqual([]);
  });

  it('enqueueKeyed: a debounced job waiting for its retry or snoozed has started: it is not replaced, the add enqueues the next one', async () => {
    const later = Date.now() + 3_600_000;
    for (const outcome of ['retry', 'snooze'] as const) {
      const [queue, key] = [`d-${outcome}`, 'k'];
      const first = await s.storage.enqueueKeyed(queue, newJob({ key, debounce: true, data: '{"n":1}' }), Date.now());
      const [job] = await s.storage.claim([{ queue, limit: 1 }], 'w', Date.now(), CONTRACT_LEASE);
      expect(job.id).toBe(first.id);
      if (outcome === 'retry') {
        expect(await s.storage.retry(ref(job), 'w', '{"name":"Error","message":"no","attempt":1}', later, Date.now())).toBe(true);
      } else {
        expect(await s.storage.snooze(ref(job), 'w', { runAt: later, delay: 3_600_000 }, 5, Date.now())).toBe('snoozed');
      }
      expect(await s.storage.getJob(first.id)).toMatchObject({ status: 'pending', runAt: later });
      const next = await s.storage.enqueueKeyed(queue, newJob({ key, debounce: true, data: '{"n":2}' }), Date.now());
      expect({ outcome, sameJob: next.id === first.id }).toEqual({ outcome, sameJob: false });
      expect(await s.storage.getJob(first.id)).toMatchObject({ data: '{"n":1}', status: 'pending', runAt: later });
      // The next one is unstarted: a later add replaces it.
      const third = await s.storage.enqueueKeyed(queue, newJob({ key, debounce: true, data: '{"n":3}' }), Date.now());
      expect(third.id).toBe(next.id);
      expect(await s.storage.getJob(next.id)).toMatchObject({ data: '{"n":3}', status: 'pending' });
    }
  });

  it('a debounced job handed back (release) keeps a start: the next add of its key enqueues the next one, not a replacement', async () => {
    const first = await s.storage.enqueueKeyed('d-release', newJob({ key: 'k', debounce: true, data: '{"n":1}' }), Date.now());
    const job = await claimOne(s.storage, 'd-release', 'w');
    expect(job.id).toBe(first.id);
    expect(await s.storage.release([ref(job)], 'w', Date.now())).toBe(1);
    expect((await s.storage.getJob(first.id))?.startedAt).not.toBeNull();
    const next = await s.storage.enqueueKeyed('d-release', newJob({ key: 'k', debounce: true, data: '{"n":2}' }), Date.now());
    expect(next.id).not.toBe(first.id);
    expect(await s.storage.getJob(first.id)).toMatchObject({ data: '{"n":1}', status: 'pending' });
  });

  it('retryFinished: a debounced job that ran and failed is retried while a newer unstarted job holds its key', async () => {
    const first = await s.storage.enqueueKeyed('d-failed', newJob({ key: 'k', debounce: true, data: '{"n":1}' }), Date.now());
    const job = await claimOne(s.storage, 'd-failed', 'w');
    expect(await s.storage.fail(ref(job), 'w', '{"name":"Error","message":"no","attempt":1}', Date.now())).toBe(true);
    const next = await s.storage.enqueueKeyed('d-failed', newJob({ key: 'k', debounce: true, data: '{"n":2}' }), Date.now());
    expect(next.id).not.toBe(first.id);
    // The failed one started: it is out of the key's one-unstarted-job index, so both may be pending.
    expect(await s.storage.retryFinished({ ids: [first.id] }, Date.now())).toEqual([first.id]);
    expect(await s.storage.getJob(first.id)).toMatchObject({ status: 'pending', data: '{"n":1}' });
    expect(await s.storage.getJob(next.id)).toMatchObject({ status: 'pending', data: '{"n":2}' });
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

  it('a dead letter keeps the failed job data, name, run options and group; the original stays failed', async () => {
    await s.storage.declareDeadLetters([{ queue: 'src', deadLetter: 'dead' }], Date.now());
    const copied = {
      data: '{"order":7}',
      name: 'charge',
      priority: 4,
      maxAttempts: 1,
      backoff: '{"type":"fixed","delay":5}',
      timeout: 30_000,
      group: 'tenant-9',
    };
    const original = await addJob(s.storage, 'src', copied);
    const job = await claimOne(s.storage, 'src', 'w');
    expect(await s.storage.fail(ref(job), 'w', '{"name":"Error","message":"no","attempt":1}', Date.now())).toBe(true);
    expect(await s.storage.getJob(original.id)).toMatchObject({ status: 'failed', queue: 'src' });
    const letters = await s.storage.listJobs('dead', { limit: 10, offset: 0 });
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ ...copied, queue: 'dead', status: 'pending', attempts: 0 });
    expect(JSON.parse(letters[0].origin as string)).toMatchObject({ queue: 'src', jobId: original.id });
  });

  it('redrive moves a dead letter that failed on the dead-letter queue back to its origin as a fresh job, which dead-letters again', async () => {
    await s.storage.declareDeadLetters([{ queue: 'src', deadLetter: 'dead' }], Date.now());
    await addJob(s.storage, 'src', { maxAttempts: 2, group: 'g1', data: '{"n":1}' });
    const failOnce = async (queue: string) => {
      const job = await claimOne(s.storage, queue, 'w');
      expect(await s.storage.fail(ref(job), 'w', `{"name":"Error","message":"${queue}","attempt":${job.attempts}}`, Date.now())).toBe(true);
      return job;
    };
    await failOnce('src');
    // The dead-letter queue's processor fails it for good too: it stays failed there, not copied further.
    const letter = await failOnce('dead');
    expect(await s.storage.getJob(letter.id)).toMatchObject({ status: 'failed', queue: 'dead' });
    expect(await s.storage.deadLetterQueues()).toEqual([{ queue: 'dead', sources: ['src'], count: 1 }]);

    expect(await s.storage.redrive('dead', 10, Date.now())).toBe(1);
    expect(await s.storage.getJob(letter.id)).toMatchObject({
      queue: 'src',
      status: 'pending',
      attempts: 0,
      maxAttempts: 2,
      error: null,
      origin: null,
      finishedAt: null,
      data: '{"n":1}',
      group: 'g1',
    });
    expect(await s.storage.deadLetterQueues()).toEqual([{ queue: 'dead', sources: ['src'], count: 0 }]);
    // A fresh job: its attempts are its own again, and failing for good there dead-letters it once more.
    const redriven = await claimOne(s.storage, 'src', 'w');
    expect(redriven).toMatchObject({ id: letter.id, attempts: 1 });
    expect(await s.storage.fail(ref(redriven), 'w', '{"name":"Error","message":"again","attempt":1}', Date.now())).toBe(true);
    expect(await s.storage.deadLetterQueues()).toEqual([{ queue: 'dead', sources: ['src'], count: 1 }]);
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
