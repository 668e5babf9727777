/**
 * The storage contract: the `QueueStorage` methods of a job's life (enqueue, claim and outcomes, leases, inspection,
 * control, schedules, housekeeping), called directly on each backend, built the way the module builds it
 * (`createQueueStorage(resolveModuleOptions(...))`), so no test here depends on a backend's classes. The other roles
 * have their own contract modules beside this one (flows, limits, cluster events, waits, lifecycle...), all run by
 * `test/storage-contract.e2e-spec.ts`, whose last case checks that every member of every role was called by them.
 * The stale-writer cases are the heart of it: an outcome, progress or heartbeat written by a worker (or for an
 * attempt) that no longer owns the row must change nothing and say so, or a worker whose lease expired overwrites
 * the attempt that replaced it.
 */
import { firstValueFrom, take, timeout } from 'rxjs';
import { createQueueStorage } from '../../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../../lib/runtime/resolve-module-options';
import { JobRecord, NewJobRecord, QueueStorage } from '../../lib/storage/queue-storage.interface';
import { describeEachBackend, TestDatabase } from '../support/backends';
import { CONTRACT_LEASE, newJob, newSchedule, recordingStorage, ref } from '../support/storage-contract';

const LEASE = CONTRACT_LEASE;
const A = 'worker-a';
const B = 'worker-b';

describeEachBackend('QueueStorage contract', (backend) => {
  let db: TestDatabase;
  let storage: QueueStorage;
  let raw: QueueStorage;

  beforeEach(async () => {
    // At the newest schema already (see contractStorage in support/storage-contract.ts); initialize() checks it.
    db = await backend.migratedDatabase();
    raw = createQueueStorage(resolveModuleOptions({ ...db.options }));
    await raw.initialize();
    storage = recordingStorage(raw, backend.name);
  });
  afterEach(async () => {
    await raw.close();
    db.cleanup();
  });

  async function add(queue: string, overrides: Partial<NewJobRecord> = {}): Promise<JobRecord> {
    const [job] = await storage.enqueue(queue, [newJob(overrides)], Date.now());
    return job;
  }

  /** Claims one job of `queue` for `worker` and returns it (fails when none was claimed). */
  async function claimOne(queue: string, worker: string, leaseDuration = LEASE): Promise<JobRecord> {
    const [job] = await storage.claim([{ queue, limit: 1 }], worker, Date.now(), leaseDuration);
    expect(job).toBeDefined();
    return job;
  }

  /**
   * Worker A's attempt 1 of a job whose lease expired, was recovered and is now held by worker B as attempt 2:
   * the situation of every stale writer.
   */
  async function reclaimedByB(queue: string): Promise<{ stale: JobRecord; current: JobRecord }> {
    await add(queue);
    const stale = await claimOne(queue, A, 1);
    // Recovery at a time past any lease measured from the real clock; requeued due at once (window 1 ms).
    const recovered = await storage.recoverExpiredLeases(Date.now() + 10 * LEASE, 1);
    expect(recovered).toEqual([expect.objectContaining({ id: stale.id, status: 'pending', attempts: 1 })]);
    const [current] = await storage.claim([{ queue, limit: 1 }], B, Date.now() + 10 * LEASE + 10, LEASE);
    expect(current).toMatchObject({ id: stale.id, attempts: 2, lockedBy: B });
    return { stale, current };
  }

  describe('enqueue', () => {
    it('inserts jobs in input order with every field, and a live key returns the job holding it', async () => {
      const now = Date.now();
      const jobs = await storage.enqueue(
        'q',
        [
          newJob({
            data: '{"n":1}',
            priority: 5,
            runAt: now + 1000,
            maxAttempts: 2,
            backoff: '{"type":"fixed","delay":5}',
            timeout: 300,
            key: 'k',
          }),
          newJob({ data: '2' }),
        ],
        now,
      );
      expect(jobs).toHaveLength(2);
      expect(jobs[0]).toMatchObject({
        queue: 'q',
        status: 'pending',
        data: '{"n":1}',
        priority: 5,
        runAt: now + 1000,
        attempts: 0,
        maxAttempts: 2,
        backoff: '{"type":"fixed","delay":5}',
        timeout: 300,
        key: 'k',
        lockedBy: null,
        leaseUntil: null,
        result: null,
        error: null,
      });
      expect(Number(jobs[1].id)).toBeGreaterThan(Number(jobs[0].id));
      const [again] = await storage.enqueue('q', [newJob({ key: 'k', data: '"other"' })], now);
      expect(again).toMatchObject({ id: jobs[0].id, data: '{"n":1}' });
      // Another queue has keys of its own.
      const [elsewhere] = await storage.enqueue('other', [newJob({ key: 'k' })], now);
      expect(elsewhere.id).not.toBe(jobs[0].id);
      expect(await storage.getJob(jobs[0].id)).toEqual(jobs[0]);
      expect(await storage.findLiveByKeys('q', ['k', 'none'])).toEqual([expect.objectContaining({ id: jobs[0].id })]);
    });

    it('a claim returns every field a worker reads, as stored, with its own lease and start', async () => {
      const now = Date.now();
      const [stored] = await storage.enqueue(
        'q',
        [
          newJob({
            data: '{"n":"\\u001e \\"quoted\\" ünïcode"}',
            priority: -7,
            runAt: now - 5,
            maxAttempts: 4,
            backoff: '{"type":"exponential","delay":20}',
            timeout: 12.5,
            key: 'k"1',
            name: 'named, "odd"',
            removeOn: 3,
            group: 'g:1',
            traceContext: '{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}',
          }),
        ],
        now,
      );
      const claimedAt = Date.now();
      const [claimed] = await storage.claim([{ queue: 'q', limit: 1 }], A, claimedAt, LEASE);
      const { status, attempts, lockedBy, leaseUntil, startedAt, updatedAt, ...same } = claimed;
      expect({ status, attempts, lockedBy, startedAt, updatedAt }).toEqual({
        status: 'running',
        attempts: 1,
        lockedBy: A,
        startedAt: claimedAt,
        updatedAt: claimedAt,
      });
      expect(leaseUntil).toBeGreaterThanOrEqual(claimedAt + LEASE - 1000);
      expect(same).toEqual({
        id: stored.id,
        queue: 'q',
        data: stored.data,
        priority: -7,
        runAt: now - 5,
        maxAttempts: 4,
        backoff: stored.backoff,
        timeout: 12.5,
        key: 'k"1',
        name: 'named, "odd"',
        removeOn: 3,
        group: 'g:1',
        traceContext: stored.traceContext,
        result: null,
        error: null,
        progress: null,
        createdAt: stored.createdAt,
        finishedAt: null,
      });
    });

    it('a key held only by a finished job does not deduplicate', async () => {
      const first = await add('q', { key: 'k' });
      const claimed = await claimOne('q', A);
      expect((await storage.completeMany([{ ref: ref(claimed), result: null }], A, Date.now())).has(first.id)).toBe(true);
      const second = await add('q', { key: 'k' });
      expect(second.id).not.toBe(first.id);
      expect(await storage.findLiveByKeys('q', ['k'])).toEqual([expect.objectContaining({ id: second.id })]);
    });

    it('hints at inserts on insertHints$', async () => {
      const hint = firstValueFrom(storage.insertHints$.pipe(take(1), timeout(10_000)));
      await add('q');
      await expect(hint).resolves.toBeUndefined();
    });
  });

  describe('claim', () => {
    it('takes due pending jobs by priority, then run time, then id, marks them running for the worker with a lease', async () => {
      const now = Date.now();
      const low = await add('q', { priority: 0, runAt: now - 3000 });
      const high = await add('q', { priority: 9, runAt: now - 1000 });
      const older = await add('q', { priority: 0, runAt: now - 5000 });
      const before = Date.now();
      const claimed = await storage.claim([{ queue: 'q', limit: 2 }], A, before, LEASE);
      expect(claimed.map((job) => job.id).sort()).toEqual([high.id, older.id].sort());
      for (const job of claimed) {
        expect(job).toMatchObject({ status: 'running', attempts: 1, lockedBy: A });
        expect(job.leaseUntil).toBeGreaterThanOrEqual(before + LEASE);
        expect(job.startedAt).not.toBeNull();
      }
      expect(await storage.getJob(low.id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
      expect(await storage.claim([{ queue: 'q', limit: 5 }], B, Date.now(), LEASE)).toEqual([
        expect.objectContaining({ id: low.id, lockedBy: B }),
      ]);
      expect(await storage.claim([{ queue: 'q', limit: 5 }], B, Date.now(), LEASE)).toEqual([]);
    });

    it("honours each queue its own limit in one claim, and never takes another queue's jobs", async () => {
      for (let i = 0; i < 4; i++) await add('one');
      for (let i = 0; i < 4; i++) await add('two');
      await add('three');
      const claimed = await storage.claim(
        [
          { queue: 'one', limit: 3 },
          { queue: 'two', limit: 1 },
        ],
        A,
        Date.now(),
        LEASE,
      );
      expect(claimed.filter((job) => job.queue === 'one')).toHaveLength(3);
      expect(claimed.filter((job) => job.queue === 'two')).toHaveLength(1);
      expect(claimed).toHaveLength(4);
      expect(await storage.getCounts('three')).toEqual([{ queue: 'three', status: 'pending', count: 1 }]);
    });

    it('leaves jobs that are not due yet and jobs of paused queues', async () => {
      const now = Date.now();
      const later = await add('q', { runAt: now + 60_000 });
      await add('paused');
      await storage.setPaused('paused', true, now);
      expect(await storage.getPausedQueues()).toEqual(['paused']);
      expect(
        await storage.claim(
          [
            { queue: 'q', limit: 5 },
            { queue: 'paused', limit: 5 },
          ],
          A,
          Date.now(),
          LEASE,
        ),
      ).toEqual([]);
      await storage.setPaused('paused', false, now);
      expect(await storage.getPausedQueues()).toEqual([]);
      expect(await storage.claim([{ queue: 'paused', limit: 5 }], A, Date.now(), LEASE)).toHaveLength(1);
      expect(await storage.getJob(later.id)).toMatchObject({ status: 'pending' });
      expect(await storage.oldestDuePending(now)).toEqual([]);
      expect(await storage.oldestDuePending(now + 60_000)).toEqual([{ queue: 'q', runAt: now + 60_000 }]);
    });
  });

  describe('oldestDuePending', () => {
    it('per queue, the oldest run time among due pending jobs, whatever their priorities; running, future and other-status jobs left out', async () => {
      const now = Date.now();
      // The oldest due job of "mixed" has the lowest of three priorities, and a newer one ranks first in claim order.
      await add('mixed', { priority: 10, runAt: now - 1_000 });
      await add('mixed', { priority: 10, runAt: now - 500 });
      await add('mixed', { priority: 0, runAt: now - 3_000 });
      await add('mixed', { priority: -5, runAt: now - 7_000 });
      await add('mixed', { priority: -5, runAt: now + 60_000 });
      await add('mixed', { priority: 99, runAt: now + 30_000 });
      // Only future jobs: not due, no row.
      await add('future', { priority: 3, runAt: now + 10_000 });
      // The oldest job of "claimed" runs: the next one counts.
      await add('claimed', { runAt: now - 9_000 });
      await claimOne('claimed', A);
      await add('claimed', { priority: 1, runAt: now - 2_000 });
      await add('claimed', { priority: 2, runAt: now - 100 });

      const rows = await storage.oldestDuePending(now);
      expect([...rows].sort((a, b) => a.queue.localeCompare(b.queue))).toEqual([
        { queue: 'claimed', runAt: now - 2_000 },
        { queue: 'mixed', runAt: now - 7_000 },
      ]);
      const later = await storage.oldestDuePending(now + 40_000);
      expect(later.find((row) => row.queue === 'future')).toEqual({ queue: 'future', runAt: now + 10_000 });
      expect(later.find((row) => row.queue === 'mixed')).toEqual({ queue: 'mixed', runAt: now - 7_000 });
    });
  });

  describe('hasWork', () => {
    it('is true for a running job or a due pending one outside paused queues, of one queue or of all, and false otherwise', async () => {
      const now = Date.now();
      expect(await storage.hasWork(undefined, now)).toBe(false);
      // Future, finished and other queues' jobs are no work of "q".
      await add('q', { runAt: now + 60_000, priority: 5 });
      const done = await add('q', { runAt: now - 10 });
      const claimed = await claimOne('q', A);
      expect(claimed.id).toBe(done.id);
      expect(await storage.hasWork('q', now)).toBe(true);
      expect(await storage.hasWork('other', now)).toBe(false);
      await storage.completeMany([{ ref: ref(claimed), result: null }], A, Date.now());
      expect(await storage.hasWork('q', now)).toBe(false);
      expect(await storage.hasWork(undefined, now)).toBe(false);
      // Due by a later clock: the future job counts then, at any priority of the queue.
      expect(await storage.hasWork('q', now + 60_000)).toBe(true);
      await add('q', { runAt: now - 5, priority: -3 });
      expect(await storage.hasWork('q', now)).toBe(true);
      expect(await storage.hasWork(undefined, now)).toBe(true);
      // A paused queue's due jobs wait for an operator: no work. Its running ones still are.
      await storage.setPaused('q', true, now);
      expect(await storage.hasWork('q', now)).toBe(false);
      expect(await storage.hasWork(undefined, now)).toBe(false);
      await add('running-in-paused', { runAt: now - 1 });
      const running = await claimOne('running-in-paused', A);
      await storage.setPaused('running-in-paused', true, now);
      expect(await storage.hasWork('running-in-paused', now)).toBe(true);
      await storage.completeMany([{ ref: ref(running), result: null }], A, Date.now());
      expect(await storage.hasWork('running-in-paused', now)).toBe(false);
      await storage.setPaused('q', false, now);
      expect(await storage.hasWork('q', now)).toBe(true);
      // Another queue's due job is work of all queues, not of "q".
      await storage.setPaused('q', true, now);
      await add('elsewhere', { runAt: now - 1 });
      expect(await storage.hasWork('q', now)).toBe(false);
      expect(await storage.hasWork(undefined, now)).toBe(true);
    });
  });

  describe('outcomes by the owner', () => {
    it('completeMany completes the owned attempts with their results and reports only those', async () => {
      await add('q');
      await add('q');
      const [one, two] = await storage.claim([{ queue: 'q', limit: 2 }], A, Date.now(), LEASE);
      const done = await storage.completeMany(
        [
          { ref: ref(one), result: '{"ok":1}' },
          { ref: ref(two), result: null },
          { ref: { id: '999999', attempt: 1 }, result: null },
        ],
        A,
        Date.now(),
      );
      expect([...done].sort()).toEqual([one.id, two.id].sort());
      // The completion keeps the owner (the completed run's, JobRun.owner) and ends the lease.
      expect(await storage.getJob(one.id)).toMatchObject({ status: 'completed', result: '{"ok":1}', lockedBy: A, leaseUntil: null });
      expect((await storage.getJob(one.id))!.finishedAt).not.toBeNull();
      expect(await storage.getJob(two.id)).toMatchObject({ status: 'completed', result: null });
    });

    it("completeMany of a batch mixing owned attempts with another worker's, a stale one and one completed before reports the owned only", async () => {
      for (let i = 0; i < 6; i++) await add('q');
      const [earlier, mine, other] = await storage.claim([{ queue: 'q', limit: 3 }], A, Date.now(), LEASE);
      const [theirs] = await storage.claim([{ queue: 'q', limit: 1 }], B, Date.now(), LEASE);
      const [last] = await storage.claim([{ queue: 'q', limit: 1 }], A, Date.now(), LEASE);
      const before = Date.now() - 1000;
      expect(await storage.completeMany([{ ref: ref(earlier), result: '"first"' }], A, before)).toEqual(new Set([earlier.id]));
      const done = await storage.completeMany(
        [
          { ref: ref(mine), result: '"mine"' },
          // Completed by this worker before: the same attempt again is not ours any more, and must not read as done.
          { ref: ref(earlier), result: '"again"' },
          { ref: ref(theirs), result: '"theirs"' },
          { ref: { ...ref(other), attempt: other.attempts + 1 }, result: '"stale"' },
          { ref: ref(last), result: null },
        ],
        A,
        Date.now(),
      );
      expect([...done].sort()).toEqual([mine.id, last.id].sort());
      expect(await storage.getJob(earlier.id)).toMatchObject({ status: 'completed', result: '"first"', finishedAt: before });
      expect(await storage.getJob(theirs.id)).toMatchObject({ status: 'running', lockedBy: B, result: null });
      expect(await storage.getJob(other.id)).toMatchObject({ status: 'running', lockedBy: A, result: null });
      expect(await storage.getJob(mine.id)).toMatchObject({ status: 'completed', result: '"mine"' });
      // One of two was ours: that one is reported.
      const [one] = await storage.claim([{ queue: 'q', limit: 1 }], A, Date.now(), LEASE);
      expect(
        await storage.completeMany(
          [
            { ref: ref(theirs), result: null },
            { ref: ref(one), result: null },
          ],
          A,
          Date.now(),
        ),
      ).toEqual(new Set([one.id]));
      // None of the batch was ours: nothing is reported, nothing changes.
      expect(await storage.completeMany([{ ref: ref(theirs), result: null }], A, Date.now())).toEqual(new Set());
      expect(await storage.getJob(theirs.id)).toMatchObject({ status: 'running', lockedBy: B });
    });

    it('completeMany that lost some attempts reads back only its own completions, not rows finished otherwise in the same millisecond', async () => {
      for (let i = 0; i < 3; i++) await add('q');
      const [mine, cancelled, handedBack] = await storage.claim([{ queue: 'q', limit: 3 }], A, Date.now(), LEASE);
      const now = Date.now();
      // Cancelled while A ran it, at the completion's time: finished at `now`, still naming A, attempt unchanged.
      expect(await storage.cancel(cancelled.id, now)).toBe('running');
      // Handed back by A (its attempt given back), then claimed by B as the same attempt number and completed by B at `now`.
      expect(await storage.release([ref(handedBack)], A, now)).toBe(1);
      const [again] = await storage.claim([{ queue: 'q', limit: 1 }], B, now, LEASE);
      expect(again).toMatchObject({ id: handedBack.id, attempts: handedBack.attempts, lockedBy: B });
      expect(await storage.completeMany([{ ref: ref(again), result: '"b"' }], B, now)).toEqual(new Set([handedBack.id]));
      // A's batch completes one of three: the short count reads back, and only A's own completion is named.
      const done = await storage.completeMany(
        [
          { ref: ref(mine), result: '"a"' },
          { ref: ref(cancelled), result: '"a"' },
          { ref: ref(handedBack), result: '"a"' },
        ],
        A,
        now,
      );
      expect(done).toEqual(new Set([mine.id]));
      expect(await storage.getJob(cancelled.id)).toMatchObject({ status: 'cancelled', lockedBy: A, finishedAt: now, result: null });
      expect(await storage.getJob(handedBack.id)).toMatchObject({ status: 'completed', lockedBy: B, finishedAt: now, result: '"b"' });
    });

    it('retry puts the attempt back to pending at its run time with the error; fail ends it', async () => {
      await add('q');
      await add('q');
      const [one, two] = await storage.claim([{ queue: 'q', limit: 2 }], A, Date.now(), LEASE);
      const runAt = Date.now() + 5000;
      expect(await storage.retry(ref(one), A, '{"message":"again"}', runAt, Date.now())).toBe(true);
      expect(await storage.getJob(one.id)).toMatchObject({
        status: 'pending',
        runAt,
        error: '{"message":"again"}',
        attempts: 1,
        lockedBy: null,
      });
      expect(await storage.fail(ref(two), A, '{"message":"bad"}', Date.now())).toBe(true);
      expect(await storage.getJob(two.id)).toMatchObject({ status: 'failed', error: '{"message":"bad"}', lockedBy: null });
    });

    it('skipsFreshLeases: only PostgreSQL lets a heartbeat leave out leases it claimed within its last beat', () => {
      // SQLite's renewal may wait out its busy timeout, which its minimum leaseDuration counts on: every beat renews all.
      expect(storage.skipsFreshLeases === true).toBe(backend.kind === 'postgres');
    });

    it('updateProgress stores progress; release hands the attempt back uncounted; extendLeases moves the lease', async () => {
      await add('q');
      const job = await claimOne('q', A, 10_000);
      expect(await storage.updateProgress(ref(job), A, '50', Date.now())).toBe(true);
      expect(await storage.getJob(job.id)).toMatchObject({ progress: '50' });
      const before = (await storage.getJob(job.id))!.leaseUntil!;
      expect(await storage.extendLeases([ref(job)], A, LEASE, Date.now())).toBe(1);
      // Claimed for 10 s, extended by 60 s (measured from now on one backend, from when it runs on the other).
      expect((await storage.getJob(job.id))!.leaseUntil).toBeGreaterThan(before + LEASE - 10_000 - 1000);
      expect(await storage.release([ref(job)], A, Date.now())).toBe(1);
      expect(await storage.getJob(job.id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        lockedBy: null,
        leaseUntil: null,
        startedAt: null,
      });
    });
  });

  describe('stale writers: a worker that lost its job changes nothing and says so', () => {
    it("completeMany, retry, fail and updateProgress of the old attempt are refused; the new owner's attempt is intact", async () => {
      const { stale, current } = await reclaimedByB('q');
      const now = Date.now();
      expect(await storage.completeMany([{ ref: ref(stale), result: '"stale"' }], A, now)).toEqual(new Set());
      expect(await storage.retry(ref(stale), A, '{"message":"stale"}', now, now)).toBe(false);
      expect(await storage.fail(ref(stale), A, '{"message":"stale"}', now)).toBe(false);
      expect(await storage.updateProgress(ref(stale), A, '"stale"', now)).toBe(false);
      expect(await storage.release([ref(stale)], A, now)).toBe(0);
      expect(await storage.extendLeases([ref(stale)], A, LEASE, now)).toBe(0);
      expect(await storage.findCancelled([ref(stale)], A)).toEqual([]);
      expect(await storage.getJob(current.id)).toMatchObject({ status: 'running', attempts: 2, lockedBy: B, result: null, progress: null });
      expect((await storage.getJob(current.id))!.leaseUntil).toBe(current.leaseUntil);
      expect(await storage.completeMany([{ ref: ref(current), result: '"fresh"' }], B, Date.now())).toEqual(new Set([current.id]));
      expect(await storage.getJob(current.id)).toMatchObject({ status: 'completed', result: '"fresh"' });
    });

    it("the owner's worker id with an old attempt number is refused (a fixed workerId restarted)", async () => {
      await add('q');
      const first = await claimOne('q', A, 1);
      await storage.recoverExpiredLeases(Date.now() + 10 * LEASE, 1);
      const [second] = await storage.claim([{ queue: 'q', limit: 1 }], A, Date.now() + 10 * LEASE + 10, LEASE);
      expect(second).toMatchObject({ id: first.id, attempts: 2, lockedBy: A });
      const old = ref(first);
      const now = Date.now();
      expect(await storage.completeMany([{ ref: old, result: '"stale"' }], A, now)).toEqual(new Set());
      expect(await storage.retry(old, A, '{}', now, now)).toBe(false);
      expect(await storage.fail(old, A, '{}', now)).toBe(false);
      expect(await storage.updateProgress(old, A, '"stale"', now)).toBe(false);
      expect(await storage.release([old], A, now)).toBe(0);
      expect(await storage.getJob(first.id)).toMatchObject({ status: 'running', attempts: 2, lockedBy: A, progress: null });
    });

    it("another worker's id is refused while the owner still holds the job", async () => {
      await add('q');
      const job = await claimOne('q', A);
      const now = Date.now();
      expect(await storage.completeMany([{ ref: ref(job), result: null }], B, now)).toEqual(new Set());
      expect(await storage.retry(ref(job), B, '{}', now, now)).toBe(false);
      expect(await storage.fail(ref(job), B, '{}', now)).toBe(false);
      expect(await storage.updateProgress(ref(job), B, '1', now)).toBe(false);
      expect(await storage.release([ref(job)], B, now)).toBe(0);
      expect(await storage.extendLeases([ref(job)], B, 10 * LEASE, now)).toBe(0);
      expect(await storage.getJob(job.id)).toMatchObject({ status: 'running', lockedBy: A, leaseUntil: job.leaseUntil, progress: null });
    });

    it('outcomes of a cancelled attempt are refused, and its owner finds it cancelled', async () => {
      await add('q');
      const job = await claimOne('q', A);
      expect(await storage.cancel(job.id, Date.now())).toBe('running');
      expect(await storage.findCancelled([ref(job)], A)).toEqual([job.id]);
      expect(await storage.findCancelled([ref(job)], B)).toEqual([]);
      expect(await storage.completeMany([{ ref: ref(job), result: null }], A, Date.now())).toEqual(new Set());
      expect(await storage.fail(ref(job), A, '{}', Date.now())).toBe(false);
      expect(await storage.getJob(job.id)).toMatchObject({ status: 'cancelled' });
    });
  });

  describe('recovery of expired leases', () => {
    it('requeues expired jobs within the jitter window, fails those out of attempts, leaves live leases alone', async () => {
      const retryable = await add('q', { maxAttempts: 2 });
      const lastTry = await add('q', { maxAttempts: 1 });
      const claimed = await storage.claim([{ queue: 'q', limit: 2 }], A, Date.now(), 1);
      expect(claimed).toHaveLength(2);
      await add('live');
      const live = await claimOne('live', B, 10 * LEASE);
      const now = Date.now() + LEASE;
      const recovered = await storage.recoverExpiredLeases(now, 5000);
      expect(recovered.map((job) => job.id).sort()).toEqual([retryable.id, lastTry.id].sort());
      const requeued = recovered.find((job) => job.id === retryable.id)!;
      expect(requeued).toMatchObject({ queue: 'q', status: 'pending', attempts: 1 });
      expect(requeued.runAt).toBeGreaterThanOrEqual(now);
      expect(requeued.runAt).toBeLessThan(now + 5000);
      expect(await storage.getJob(retryable.id)).toMatchObject({ status: 'pending', attempts: 1, lockedBy: null, leaseUntil: null });
      expect(recovered.find((job) => job.id === lastTry.id)).toMatchObject({ status: 'failed', attempts: 1 });
      const failed = (await storage.getJob(lastTry.id))!;
      expect(failed.status).toBe('failed');
      expect(JSON.parse(failed.error!)).toMatchObject({ name: 'LeaseExpiredError', attempt: 1 });
      expect(await storage.getJob(live.id)).toMatchObject({ status: 'running', lockedBy: B });
      expect(await storage.recoverExpiredLeases(now, 5000)).toEqual([]);
    });
  });

  describe('claimed ahead', () => {
    it('the claim writes no start; markStarted writes each given start once, fenced, and counts tell claimed rows apart', async () => {
      await add('ahead');
      await add('ahead');
      const [first, second] = await storage.claim([{ queue: 'ahead', limit: 2 }], A, Date.now(), CONTRACT_LEASE);
      expect(await storage.getJob(first.id)).toMatchObject({ status: 'running', startedAt: null, lockedBy: A });
      expect(counts(await storage.getCounts('ahead'))).toEqual(['ahead:claimed:2', 'ahead:running:2']);
      const at = Date.now() - 5;
      // Another worker's start, and a stale attempt's, write nothing.
      expect(await storage.markStarted([{ ...ref(first), startedAt: at }], B)).toBe(0);
      expect(await storage.markStarted([{ id: first.id, attempt: first.attempts + 1, startedAt: at }], A)).toBe(0);
      expect(await storage.markStarted([{ ...ref(first), startedAt: at }], A)).toBe(1);
      // Written once: a later start of the same attempt does not move it.
      expect(await storage.markStarted([{ ...ref(first), startedAt: at + 1000 }], A)).toBe(0);
      expect((await storage.getJob(first.id))!.startedAt).toBe(at);
      expect(counts(await storage.getCounts('ahead'))).toEqual(['ahead:claimed:1', 'ahead:running:2']);
      // A completion writes the start it carries over one written before: both are the handler's start of that attempt,
      // so in a worker they agree (here they differ, to see which one the row keeps).
      const completed = await storage.completeMany(
        [
          { ref: { id: first.id, attempt: first.attempts, startedAt: at + 2000 }, result: null },
          { ref: { id: second.id, attempt: second.attempts, startedAt: at + 3 }, result: null },
        ],
        A,
        Date.now(),
      );
      expect(completed).toEqual(new Set([first.id, second.id]));
      expect((await storage.getJob(first.id))!.startedAt).toBe(at + 2000);
      expect((await storage.getJob(second.id))!.startedAt).toBe(at + 3);
    });
  });

  describe('batch runs', () => {
    it('a claim clears the start of the attempt before it: a job retried after its handler started reads claimed, not running', async () => {
      await add('again');
      const [job] = await storage.claim([{ queue: 'again', limit: 1 }], A, Date.now(), CONTRACT_LEASE);
      const at = Date.now() - 5;
      expect(await storage.markStarted([{ ...ref(job), startedAt: at }], A)).toBe(1);
      const error = JSON.stringify({ name: 'Error', message: 'boom', attempt: 1 });
      expect(await storage.retry({ ...ref(job), startedAt: at }, A, error, Date.now() - 1, Date.now())).toBe(true);
      const [again] = await storage.claim([{ queue: 'again', limit: 1 }], A, Date.now(), CONTRACT_LEASE);
      expect(again).toMatchObject({ id: job.id, attempts: 2 });
      expect(await storage.getJob(job.id)).toMatchObject({ status: 'running', attempts: 2, startedAt: null });
      expect(counts(await storage.getCounts('again'))).toEqual(['again:claimed:1', 'again:running:1']);
    });

    it('markStarted writes the batch size a ref carries with its start, or alone once the start is written; fenced by owner and attempt', async () => {
      await add('batched');
      await add('batched');
      const [first, second] = await storage.claim([{ queue: 'batched', limit: 2 }], A, Date.now(), CONTRACT_LEASE);
      const at = Date.now();
      // Another worker's round, and a stale attempt's, write nothing.
      expect(await storage.markStarted([{ ...ref(first), startedAt: at, batch: 2 }], B)).toBe(0);
      expect(await storage.markStarted([{ id: first.id, attempt: first.attempts + 1, startedAt: at, batch: 2 }], A)).toBe(0);
      expect((await storage.getJob(first.id))!.runBatch).toBeUndefined();
      // The start of a job waiting in a partial batch goes out first, its call's size in a later round.
      expect(
        await storage.markStarted(
          [
            { ...ref(first), startedAt: at, batch: 2 },
            { ...ref(second), startedAt: at },
          ],
          A,
        ),
      ).toBe(2);
      expect((await storage.getJob(second.id))!.runBatch).toBeUndefined();
      expect(await storage.markStarted([{ ...ref(second), startedAt: at + 5, batch: 2 }], A)).toBe(1);
      const running = (await storage.getJob(second.id))!;
      expect(running.runBatch).toBe(2);
      // The size does not move the start the first round wrote.
      expect(running.startedAt).toBe(at);
      // Both recorded already: nothing is written; a ref without a size leaves the recorded one.
      expect(await storage.markStarted([{ ...ref(first), startedAt: at, batch: 2 }], A)).toBe(0);
      expect(await storage.markStarted([{ ...ref(first), startedAt: at }], A)).toBe(0);
      expect((await storage.getJob(first.id))!.runBatch).toBe(2);
    });

    it('the outcome writes carry the size: the ending run keeps it in its record, a completion on the row; a single-job run records none', async () => {
      for (let n = 0; n < 5; n++) await add('batched');
      const [retried, completed, failed, snoozed] = await storage.claim([{ queue: 'batched', limit: 4 }], A, Date.now(), CONTRACT_LEASE);
      const at = Date.now();
      const inBatch = (job: JobRecord) => ({ ...ref(job), startedAt: at, batch: 4 });
      // A retry ends the run: its record keeps the size, the row forgets it for the next run.
      expect(await storage.retry(inBatch(retried), A, '{"message":"again"}', at, at)).toBe(true);
      const afterRetry = (await storage.getJob(retried.id))!;
      expect(afterRetry.runBatch).toBeUndefined();
      expect(JSON.parse(afterRetry.runs!)).toEqual([expect.objectContaining({ attempt: 1, outcome: 'retried', batch: 4 })]);
      // A completion keeps it on the row: the completed run is the row's own.
      expect(await storage.completeMany([{ ref: inBatch(completed), result: null }], A, at)).toEqual(new Set([completed.id]));
      expect((await storage.getJob(completed.id))!.runBatch).toBe(4);
      expect(await storage.fail(inBatch(failed), A, '{"message":"no"}', at)).toBe(true);
      expect(JSON.parse((await storage.getJob(failed.id))!.runs!)).toEqual([expect.objectContaining({ outcome: 'failed', batch: 4 })]);
      expect(await storage.snooze(inBatch(snoozed), A, { runAt: at, delay: 0 }, 5, at)).toBe('snoozed');
      const afterSnooze = (await storage.getJob(snoozed.id))!;
      expect(afterSnooze.runBatch).toBeUndefined();
      expect(JSON.parse(afterSnooze.runs!)).toEqual([expect.objectContaining({ outcome: 'snoozed', batch: 4 })]);
      // A write whose ref carries no size takes the one an earlier round stored; a single-job run records none.
      const [again, single] = await storage.claim([{ queue: 'batched', limit: 2 }], A, Date.now(), CONTRACT_LEASE);
      expect(await storage.markStarted([{ ...ref(again), startedAt: at, batch: 3 }], A)).toBe(1);
      expect(await storage.fail({ ...ref(again), startedAt: at }, A, '{"message":"no"}', at)).toBe(true);
      expect(JSON.parse((await storage.getJob(again.id))!.runs!).at(-1)).toEqual(expect.objectContaining({ outcome: 'failed', batch: 3 }));
      expect(await storage.completeMany([{ ref: { ...ref(single), startedAt: at }, result: null }], A, at)).toEqual(new Set([single.id]));
      expect((await storage.getJob(single.id))!.runBatch).toBeUndefined();
      // A stale attempt's outcome writes no size.
      const [late] = await storage.claim([{ queue: 'batched', limit: 1 }], A, Date.now(), CONTRACT_LEASE);
      expect(late).toBeDefined();
      const staleRef = { id: late.id, attempt: late.attempts + 1, startedAt: at, batch: 9 };
      expect(await storage.completeMany([{ ref: staleRef, result: null }], A, at)).toEqual(new Set());
      expect((await storage.getJob(late.id))!.runBatch).toBeUndefined();
    });
  });

  describe('inspection', () => {
    it('getJob, listJobs (newest first, by status, paged), getCounts, finishedSince', async () => {
      const jobs = [await add('q'), await add('q'), await add('q'), await add('other')];
      const claimed = await claimOne('q', A);
      expect(await storage.completeMany([{ ref: ref(claimed), result: null }], A, Date.now())).toEqual(new Set([claimed.id]));
      expect(await storage.getJob('999999')).toBeNull();
      expect((await storage.listJobs('q', { limit: 10, offset: 0 })).map((job) => job.id)).toEqual([jobs[2].id, jobs[1].id, jobs[0].id]);
      expect((await storage.listJobs('q', { limit: 1, offset: 1 })).map((job) => job.id)).toEqual([jobs[1].id]);
      expect((await storage.listJobs('q', { status: 'completed', limit: 10, offset: 0 })).map((job) => job.id)).toEqual([claimed.id]);
      expect(counts(await storage.getCounts())).toEqual(['other:pending:1', 'q:completed:1', 'q:pending:2']);
      expect(counts(await storage.getCounts('q'))).toEqual(['q:completed:1', 'q:pending:2']);
      const timings = await storage.finishedSince(Date.now() - 60_000, 10);
      expect(timings).toEqual([expect.objectContaining({ queue: 'q', status: 'completed' })]);
      expect(timings[0].runMs).toBeGreaterThanOrEqual(0);
      expect(await storage.finishedSince(Date.now() + 60_000, 10)).toEqual([]);
    });

    it('jobsByKey: every job of the queue with that key, finished or live, newest first, at most limit', async () => {
      const finished = await add('q', { key: 'k' });
      await storage.completeMany([{ ref: ref(await claimOne('q', A)), result: null }], A, Date.now());
      const live = await add('q', { key: 'k' });
      await add('q', { key: 'other' });
      await add('elsewhere', { key: 'k' });
      expect((await storage.jobsByKey('q', 'k', 10)).map((job) => [job.id, job.status])).toEqual([
        [live.id, 'pending'],
        [finished.id, 'completed'],
      ]);
      expect((await storage.jobsByKey('q', 'k', 1)).map((job) => job.id)).toEqual([live.id]);
      expect(await storage.jobsByKey('q', 'none', 10)).toEqual([]);
    });
  });

  describe('control', () => {
    it('cancel reports the status before; only pending and running jobs change', async () => {
      const pending = await add('q');
      expect(await storage.cancel(pending.id, Date.now())).toBe('pending');
      expect(await storage.getJob(pending.id)).toMatchObject({ status: 'cancelled' });
      expect(await storage.cancel(pending.id, Date.now())).toBe('cancelled');
      expect(await storage.cancel('999999', Date.now())).toBeNull();
    });

    it('retryFinished by ids and by queue, skipping jobs whose key a live job holds; keyBlockedFailed names them', async () => {
      const failWith = async (key: string | null): Promise<JobRecord> => {
        const job = await add('q', { key });
        const claimed = await claimOne('q', A);
        expect(claimed.id).toBe(job.id);
        expect(await storage.fail(ref(claimed), A, '{}', Date.now())).toBe(true);
        return job;
      };
      const plain = await failWith(null);
      const keyed = await failWith('k');
      const holder = await add('q', { key: 'k' });
      const cancelled = await add('q');
      await storage.cancel(cancelled.id, Date.now());
      expect(await storage.keyBlockedFailed('q', Date.now())).toEqual([{ id: keyed.id, key: 'k', holderId: holder.id }]);
      expect((await storage.retryFinished({ ids: [keyed.id, cancelled.id] }, Date.now())).sort()).toEqual([cancelled.id]);
      expect(await storage.getJob(keyed.id)).toMatchObject({ status: 'failed' });
      expect(await storage.getJob(cancelled.id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await storage.retryFinished({ queue: 'q' }, Date.now())).toEqual([plain.id]);
      expect(await storage.getJob(plain.id)).toMatchObject({ status: 'pending', attempts: 0, lockedBy: null });
    });

    it('remove deletes a job that is not running, refuses a running one, and reports null for none', async () => {
      const pending = await add('q');
      await add('q2');
      const running = await claimOne('q2', A);
      expect(await storage.remove(pending.id, Date.now())).toBe('pending');
      expect(await storage.getJob(pending.id)).toBeNull();
      expect(await storage.remove(running.id, Date.now())).toBe('running');
      expect(await storage.getJob(running.id)).toMatchObject({ status: 'running' });
      expect(await storage.remove(pending.id, Date.now())).toBeNull();
    });

    it('applyRetention keeps the newest by count and drops those finished before a time; clean deletes by age', async () => {
      const finished: JobRecord[] = [];
      for (let i = 0; i < 5; i++) {
        await add('q');
        const job = await claimOne('q', A);
        await storage.completeMany([{ ref: ref(job), result: null }], A, 1000 + i);
        finished.push(job);
      }
      expect(await storage.applyRetention('q', 'completed', { maxCount: 3 }, 100)).toBe(2);
      expect((await storage.listJobs('q', { status: 'completed', limit: 10, offset: 0 })).map((job) => job.id)).toEqual(
        finished
          .slice(2)
          .map((job) => job.id)
          .reverse(),
      );
      expect(await storage.applyRetention('q', 'completed', { finishedBefore: 1004 }, 100)).toBe(2);
      expect(await storage.applyRetention('q', 'failed', { maxCount: 0 }, 100)).toBe(0);
      const old = await add('q');
      expect(await storage.clean('q', ['completed'], 1005)).toBe(1);
      expect(await storage.clean('q', ['pending'], Date.now() + 1000)).toBe(1);
      expect(await storage.getJob(old.id)).toBeNull();
      expect(await storage.getCounts('q')).toEqual([]);
    });
  });

  describe('schedules', () => {
    it('upserts, lists, finds due, enqueues each occurrence once and advances, removes', async () => {
      await storage.upsertSchedule(newSchedule(), 1);
      await storage.upsertSchedule(newSchedule({ name: 'cron', cron: '* * * * *', every: null, timezone: 'UTC', nextRunAt: 9000 }), 1);
      await storage.upsertSchedule(newSchedule({ data: '{"v":2}' }), 2);
      expect(await storage.listSchedules()).toEqual([
        newSchedule({ name: 'cron', cron: '* * * * *', every: null, timezone: 'UTC', nextRunAt: 9000 }),
        newSchedule({ data: '{"v":2}' }),
      ]);
      const due = await storage.dueSchedules(5000);
      expect(due).toEqual([newSchedule({ data: '{"v":2}' })]);
      const occurrence = { schedule: due[0], occurrenceAt: 5000, job: newJob({ data: '{"v":2}', runAt: 5000 }), nextRunAt: 6000 };
      expect(await storage.enqueueOccurrence(occurrence, 5001)).toBe(true);
      expect(await storage.enqueueOccurrence(occurrence, 5002)).toBe(false);
      expect(await storage.getCounts('sched')).toEqual([{ queue: 'sched', status: 'pending', count: 1 }]);
      expect(await storage.dueSchedules(5000)).toEqual([]);
      expect((await storage.listSchedules()).find((row) => row.name === 'tick')).toMatchObject({ nextRunAt: 6000 });
      expect(await storage.removeSchedule('sched', 'tick')).toBe(true);
      expect(await storage.removeSchedule('sched', 'tick')).toBe(false);
      expect((await storage.listSchedules()).map((row) => row.name)).toEqual(['cron']);
    });
  });

  describe('job names, logs, data and removal (schema 3)', () => {
    it('claims carry name and removal bits; stale writers of log and data are refused', async () => {
      await add('named', { name: 'welcome', removeOn: 3 });
      const { stale, current } = await reclaimedByB('named-stale');
      const now = Date.now();
      expect(await storage.appendLog(ref(stale), A, 'stale', 100, now)).toBe(false);
      expect(await storage.updateData(ref(stale), A, '{"stale":true}', now)).toBe(false);
      expect(await storage.getJobLogs(current.id)).toBeNull();
      expect(await storage.updateData(ref(current), B, '{"fresh":true}', now)).toBe(true);
      expect(await storage.getJob(current.id)).toMatchObject({ data: '{"fresh":true}' });
      const claimed = await claimOne('named', A);
      expect(claimed).toMatchObject({ name: 'welcome', removeOn: 3 });
      expect(await storage.getJob(claimed.id)).toMatchObject({ name: 'welcome', removeOn: 3 });
      expect(await storage.getJobLogs('999999')).toBeUndefined();
    });

    it('getCounts by name: per status, only that name of that queue (not other names, unnamed jobs or other queues)', async () => {
      for (const name of ['news', 'news', 'news', 'news', 'news', 'reset', undefined]) await add('named-counts', { name });
      await add('other-queue', { name: 'news' });
      // Claim order is id order at equal priority: the first four are the news jobs.
      const [done, failed, running, cancelled] = await storage.claim([{ queue: 'named-counts', limit: 4 }], A, Date.now(), LEASE);
      await storage.completeMany([{ ref: ref(done), result: null }], A, Date.now());
      await storage.fail(ref(failed), A, '{}', Date.now());
      expect(await storage.cancel(cancelled.id, Date.now())).toBe('running');
      expect(running.name).toBe('news');
      expect(counts(await storage.getCounts('named-counts', 'news'))).toEqual([
        'named-counts:cancelled:1',
        // Of its running rows, the one claimed and never started: counted in running too (the reader takes it out).
        'named-counts:claimed:1',
        'named-counts:completed:1',
        'named-counts:failed:1',
        'named-counts:pending:1',
        'named-counts:running:1',
      ]);
      expect(counts(await storage.getCounts('named-counts', 'reset'))).toEqual(['named-counts:pending:1']);
      expect(await storage.getCounts('named-counts', 'nobody')).toEqual([]);
      expect(counts(await storage.getCounts('named-counts'))).toHaveLength(6);
    });

    it('appendLog keeps the newest maxLines lines, in order', async () => {
      await add('logs');
      const job = await claimOne('logs', A);
      for (const line of ['a', 'b', 'c', 'd']) expect(await storage.appendLog(ref(job), A, line, 3, Date.now())).toBe(true);
      expect(JSON.parse((await storage.getJobLogs(job.id))!)).toEqual(['b', 'c', 'd']);
    });

    it('removeFinishedJobs deletes only the given jobs still in that status', async () => {
      await add('rm');
      await add('rm');
      const [done, failed] = await storage.claim([{ queue: 'rm', limit: 2 }], A, Date.now(), LEASE);
      await storage.completeMany([{ ref: ref(done), result: null }], A, Date.now());
      await storage.fail(ref(failed), A, '{}', Date.now());
      expect(await storage.removeFinishedJobs([done.id, failed.id], 'failed')).toBe(1);
      expect(await storage.getJob(failed.id)).toBeNull();
      expect(await storage.getJob(done.id)).toMatchObject({ status: 'completed' });
      expect(await storage.removeFinishedJobs([done.id, 'junk'], 'completed')).toBe(1);
    });

    it('announceProcessors: one statement for all queues, never moved back; unprocessed queues are those with due jobs and no live announcement', async () => {
      const now = Date.now();
      await storage.setPaused('paused-one', true, now);
      await storage.announceProcessors(['p1', 'p2', 'paused-one'], now + 10_000, now);
      await storage.announceProcessors(['p1'], now + 5_000, now);
      expect((await storage.processedQueues(now)).sort()).toEqual(['p1', 'p2', 'paused-one']);
      expect((await storage.processedQueues(now + 7_000)).sort()).toEqual(['p1', 'p2', 'paused-one']);
      expect(await storage.processedQueues(now + 10_000)).toEqual([]);
      expect(await storage.getPausedQueues()).toEqual(['paused-one']);
      const lonely = await add('lonely', { runAt: now - 500 });
      await add('p1', { runAt: now - 500 });
      await add('lonely', { runAt: now + 60_000 });
      expect(await storage.unprocessedQueues(now, now)).toEqual([{ queue: 'lonely', runAt: lonely.runAt }]);
      expect(await storage.unprocessedQueues(now - 1000, now)).toEqual([]);
      expect((await storage.unprocessedQueues(now, now + 20_000)).map((row) => row.queue).sort()).toEqual(['lonely', 'p1']);
    });
  });
});

/** Count rows as sorted `queue:status:count` strings, so a comparison ignores the order rows come in. */
function counts(rows: { queue: string; status: string; count: number }[]): string[] {
  return rows.map((row) => `${row.queue}:${row.status}:${row.count}`).sort();
}
