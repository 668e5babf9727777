/**
 * Every conditional write of the storage has a losing writer here: writer A reads, writer B changes the row, then A's
 * write, made with what it read, must change nothing (say so where the method reports it) and leave B's state. Each
 * test names the condition of the SQL it proves; removing that condition makes it fail. Cases proven elsewhere are
 * not repeated: the stale outcomes, hand-backs and heartbeats of the storage contract (storage-contract.e2e-spec.ts),
 * keys held by live or finished jobs (the same file), a claim racing remove (remove-race.e2e-spec.ts), the newest of
 * failed jobs sharing a key (hostile-input.e2e-spec.ts).
 *
 * Calls the storage directly on each backend, built the way the module builds it, with explicit `now` values: no
 * sleeps. Where SQLite measures a lease from its own clock (when the statement runs), `now` stays near the real one.
 */
import { createQueueStorage } from '../lib/runtime/create-queue-storage';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { FLOW_WAIT_OFFSET } from '../lib/storage/shared/flow-wait';
import { AttemptRef, JobRecord, NewJobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';
import { describeEachBackend, itWhen, TestDatabase } from './support/backends';
import { openSideTransaction } from './support/postgres-side-transaction';
import { betweenStatements } from './support/statement-hook';
import { CONTRACT_LEASE, newJob, newSchedule, occurrenceOf, ref } from './support/storage-contract';

const LEASE = CONTRACT_LEASE;
const A = 'worker-a';
const B = 'worker-b';

describeEachBackend('QueueStorage compare-and-set: the writer with a stale read loses', (backend) => {
  let db: TestDatabase;
  let storage: QueueStorage;

  beforeEach(async () => {
    // At the newest schema already (see contractStorage in support/storage-contract.ts); initialize() checks it.
    db = await backend.migratedDatabase();
    storage = createQueueStorage(resolveModuleOptions({ ...db.options }));
    await storage.initialize();
  });
  afterEach(async () => {
    await storage.close();
    db.cleanup();
  });

  async function add(queue: string, overrides: Partial<NewJobRecord> = {}): Promise<JobRecord> {
    const [job] = await storage.enqueue(queue, [newJob(overrides)], Date.now());
    return job;
  }

  async function claimOne(queue: string, worker: string, leaseDuration = LEASE, now = Date.now()): Promise<JobRecord> {
    const [job] = await storage.claim([{ queue, limit: 1 }], worker, now, leaseDuration);
    expect(job).toMatchObject({ queue, lockedBy: worker });
    return job;
  }

  async function job(id: string): Promise<JobRecord> {
    const row = await storage.getJob(id);
    expect(row).not.toBeNull();
    return row!;
  }

  /** A parent (policy `onChildFailure`) waiting for two children of queue `kids`: ids parent, first, second. */
  async function flow(onChildFailure: 'fail' | 'continue' = 'fail'): Promise<[string, string, string]> {
    const now = Date.now();
    const ids = await storage.enqueueFlow(
      [
        { queue: 'parent', job: newJob({ runAt: now + FLOW_WAIT_OFFSET }), parentIndex: -1, onChildFailure },
        { queue: 'kids', job: newJob({ data: '1' }), parentIndex: 0, onChildFailure: null },
        { queue: 'kids', job: newJob({ data: '2' }), parentIndex: 0, onChildFailure: null },
      ],
      now,
    );
    expect(ids).toHaveLength(3);
    return ids as [string, string, string];
  }

  describe('fences of a running attempt (locked_by, attempts, status)', () => {
    // The stale writers the contract does not try: log and data under each fence alone, and every writer but
    // complete and fail against a cancel, which keeps owner and attempt and so leaves only the status fence.
    type Writer = (stale: AttemptRef, worker: string) => Promise<boolean | number>;
    const writers: Record<string, Writer> = {
      retry: (stale, worker) => storage.retry(stale, worker, '{"message":"stale"}', Date.now(), Date.now()),
      updateProgress: (stale, worker) => storage.updateProgress(stale, worker, '"stale"', Date.now()),
      appendLog: (stale, worker) => storage.appendLog(stale, worker, 'stale', 100, Date.now()),
      updateData: (stale, worker) => storage.updateData(stale, worker, '{"stale":true}', Date.now()),
      release: (stale, worker) => storage.release([stale], worker, Date.now()),
      extendLeases: (stale, worker) => storage.extendLeases([stale], worker, 10 * LEASE, Date.now()),
      rateLimit: (stale, worker) => storage.rateLimit('q', stale, worker, Date.now() - 1, Date.now()),
    };
    const lost = (outcome: boolean | number): boolean => outcome === false || outcome === 0;
    const untouched = { data: '{}', progress: null, error: null };

    it.each(['appendLog', 'updateData'])(
      "%s by another worker's id, same attempt, is refused while the owner holds the job (locked_by fence)",
      async (name) => {
        await add('q');
        const held = await claimOne('q', A);
        expect(lost(await writers[name](ref(held), B))).toBe(true);
        expect(await job(held.id)).toMatchObject({ ...untouched, status: 'running', lockedBy: A, attempts: 1 });
        expect(await storage.getJobLogs(held.id)).toBeNull();
      },
    );

    it.each(['appendLog', 'updateData'])(
      "%s of the owner's worker id with the attempt before is refused (attempts fence: a fixed workerId claimed again)",
      async (name) => {
        await add('q');
        const first = await claimOne('q', A, 1);
        await storage.recoverExpiredLeases(Date.now() + 10 * LEASE, 1);
        const second = await claimOne('q', A, LEASE, Date.now() + 10 * LEASE + 10);
        expect(second).toMatchObject({ id: first.id, attempts: 2 });
        expect(lost(await writers[name](ref(first), A))).toBe(true);
        expect(await job(first.id)).toMatchObject({ data: '{}', progress: null, status: 'running', lockedBy: A, attempts: 2 });
        expect(await storage.getJobLogs(first.id)).toBeNull();
      },
    );

    it.each(Object.keys(writers))(
      '%s of an attempt cancelled meanwhile is refused: owner and attempt still match (status fence)',
      async (name) => {
        await add('q');
        const held = await claimOne('q', A);
        expect(await storage.cancel(held.id, Date.now())).toBe('running');
        expect(lost(await writers[name](ref(held), A))).toBe(true);
        expect(await job(held.id)).toMatchObject({ ...untouched, status: 'cancelled', lockedBy: A, attempts: 1, leaseUntil: null });
        expect(await storage.getJobLogs(held.id)).toBeNull();
        expect(await storage.findCancelled([ref(held)], A)).toEqual([held.id]);
      },
    );
  });

  describe('lease recovery (lease_until < now)', () => {
    it("a recoverer that read an expired lease loses to the owner's heartbeat that came first", async () => {
      await add('q');
      const held = await claimOne('q', A, 1);
      const later = Date.now() + 1000;
      expect(await storage.findExpiredLeases(later, [])).toEqual([{ id: held.id, queue: 'q' }]);
      // The owner renews before the recoverer writes.
      expect(await storage.extendLeases([ref(held)], A, LEASE, Date.now())).toBe(1);
      expect(await storage.recoverExpiredLease(held.id, later, 1)).toBeNull();
      expect(await storage.recoverExpiredLeases(later, 1)).toEqual([]);
      expect(await job(held.id)).toMatchObject({ status: 'running', lockedBy: A, attempts: 1, error: null });
    });

    it('a second recoverer loses to the first, whose requeued job another worker claimed meanwhile', async () => {
      await add('q');
      const held = await claimOne('q', A, 1);
      const later = Date.now() + 1000;
      expect(await storage.findExpiredLeases(later, [])).toHaveLength(1);
      expect(await storage.recoverExpiredLease(held.id, later, 1)).toMatchObject({ id: held.id, status: 'pending', attempts: 1 });
      const current = await claimOne('q', B, LEASE, later + 10);
      // The second recoverer read the same expired row and writes now.
      expect(await storage.recoverExpiredLease(held.id, later, 1)).toBeNull();
      expect(await job(held.id)).toMatchObject({ status: 'running', lockedBy: B, attempts: 2, leaseUntil: current.leaseUntil });
    });
  });

  describe('schedule advance (next_run_at = the value read)', () => {
    it('a poller that read an old occurrence enqueues nothing and does not move the schedule back', async () => {
      await storage.upsertSchedule(newSchedule(), 1);
      const [staleRead] = await storage.dueSchedules(5000);
      // Another poller enqueues the occurrence at 5000, then the one at 6000.
      expect(await storage.enqueueOccurrence(occurrenceOf((await storage.dueSchedules(5000))[0], 5000), 5001)).toBe(true);
      expect(await storage.enqueueOccurrence(occurrenceOf((await storage.dueSchedules(6000))[0], 6000), 6001)).toBe(true);
      expect(await storage.enqueueOccurrence(occurrenceOf(staleRead, 5000), 6002)).toBe(false);
      expect(await storage.listSchedules()).toEqual([newSchedule({ nextRunAt: 7000 })]);
      expect(await storage.getCounts('sched')).toEqual([{ queue: 'sched', status: 'pending', count: 2 }]);
    });

    it("a poller that read the schedule before an operator replaced it does not overwrite the new schedule's next run", async () => {
      await storage.upsertSchedule(newSchedule(), 1);
      const [staleRead] = await storage.dueSchedules(5000);
      await storage.upsertSchedule(newSchedule({ every: 60_000, nextRunAt: 100_000 }), 2);
      await storage.enqueueOccurrence(occurrenceOf(staleRead, 5000), 5001);
      expect(await storage.listSchedules()).toEqual([newSchedule({ every: 60_000, nextRunAt: 100_000 })]);
    });
  });

  describe('retry of finished jobs (status IN failed, cancelled)', () => {
    it.each(['ids', 'queue'] as const)(
      'a retry (by %s) of a job read as failed, retried and claimed again meanwhile, leaves the new attempt running',
      async (by) => {
        await add('q');
        const first = await claimOne('q', A);
        expect(await storage.fail(ref(first), A, '{"message":"boom"}', Date.now())).toBe(true);
        // Another operator retries it first, and a worker takes it.
        expect(await storage.retryFinished({ ids: [first.id] }, Date.now())).toEqual([first.id]);
        const current = await claimOne('q', B);
        const target = by === 'ids' ? { ids: [first.id] } : { queue: 'q' };
        expect(await storage.retryFinished(target, Date.now())).toEqual([]);
        expect(await job(first.id)).toMatchObject({ status: 'running', lockedBy: B, attempts: 1, leaseUntil: current.leaseUntil });
      },
    );
  });

  describe('cancel', () => {
    // SQLite reads the status, then writes guarded by it: the completion lands between the two statements.
    itWhen(backend.kind === 'sqlite')(
      'a cancel that read the job running loses to its completion: it reports completed and changes nothing',
      async () => {
        await add('q');
        const held = await claimOne('q', A);
        const unhook = betweenStatements(storage, async (index) => {
          if (index !== 0) return;
          unhook();
          expect(await storage.completeMany([{ ref: ref(held), result: '"done"' }], A, Date.now())).toEqual(new Set([held.id]));
        });
        expect(await storage.cancel(held.id, Date.now())).toBe('completed');
        expect(await job(held.id)).toMatchObject({ status: 'completed', result: '"done"' });
      },
    );

    // PostgreSQL cancels in one statement that locks the row: a completion not yet committed is waited for and seen.
    itWhen(backend.kind === 'postgres')(
      'a cancel racing an uncommitted completion waits for it, reports completed and changes nothing',
      async () => {
        await add('q');
        const held = await claimOne('q', A);
        const side = await openSideTransaction(db.options);
        try {
          await side.query(
            `UPDATE ${side.jobs} SET status = 'completed', result = '"done"', locked_by = NULL, lease_until = NULL WHERE id = $1`,
            [held.id],
          );
          const cancelling = storage.cancel(held.id, Date.now());
          await side.untilWaitedOn(cancelling);
          await side.end('COMMIT');
          expect(await cancelling).toBe('completed');
        } finally {
          await side.close();
        }
        expect(await job(held.id)).toMatchObject({ status: 'completed', result: '"done"' });
      },
    );

    it('cancelDescendants leaves a child that completed before it alone', async () => {
      const [parent, first, second] = await flow('continue');
      const [one] = await storage.claim([{ queue: 'kids', limit: 1 }], A, Date.now(), LEASE);
      expect(one.id).toBe(first);
      await storage.completeMany([{ ref: ref(one), result: '"one"' }], A, Date.now());
      expect(await storage.cancelDescendants(parent, Date.now())).toEqual([{ id: second, queue: 'kids', attempt: 0, running: false }]);
      expect(await job(first)).toMatchObject({ status: 'completed', result: '"one"' });
      expect(await job(second)).toMatchObject({ status: 'cancelled' });
    });
  });

  describe('flow readiness (a parent is released only when no live sibling is left)', () => {
    it('the first of two children to complete leaves the parent waiting; the second releases it', async () => {
      const [parent, first, second] = await flow();
      const children = await storage.claim([{ queue: 'kids', limit: 2 }], A, Date.now(), LEASE);
      expect(children.map((child) => child.id).sort()).toEqual([first, second].sort());
      const byId = new Map(children.map((child) => [child.id, child]));
      await storage.completeMany([{ ref: ref(byId.get(first)!), result: null }], A, Date.now());
      expect((await job(parent)).runAt).toBeGreaterThanOrEqual(FLOW_WAIT_OFFSET);
      const done = Date.now();
      await storage.completeMany([{ ref: ref(byId.get(second)!), result: null }], A, done);
      expect((await job(parent)).runAt).toBeLessThanOrEqual(done);
      expect(await storage.claim([{ queue: 'parent', limit: 1 }], B, done, LEASE)).toEqual([expect.objectContaining({ id: parent })]);
    });

    it('removing a pending child while its sibling runs leaves the parent waiting', async () => {
      const [parent, first, second] = await flow();
      expect((await claimOne('kids', A)).id).toBe(first);
      expect(await storage.remove(second, Date.now())).toBe('pending');
      expect(await job(parent)).toMatchObject({ status: 'pending' });
      expect((await job(parent)).runAt).toBeGreaterThanOrEqual(FLOW_WAIT_OFFSET);
    });

    it.each(['completed', 'failed'] as const)(
      'a child %s after an operator cancelled its parent leaves the parent cancelled, its run time untouched',
      async (outcome) => {
        const [parent, first, second] = await flow();
        const children = await storage.claim([{ queue: 'kids', limit: 2 }], A, Date.now(), LEASE);
        expect(await storage.cancel(parent, Date.now())).toBe('pending');
        const before = await job(parent);
        const end = async (child: JobRecord) =>
          outcome === 'completed'
            ? storage.completeMany([{ ref: ref(child), result: null }], A, Date.now())
            : storage.fail(ref(child), A, '{}', Date.now());
        for (const child of children) await end(child);
        expect(await job(parent)).toEqual(before);
        expect((await Promise.all([first, second].map(job))).map((child) => child.status)).toEqual([outcome, outcome]);
      },
    );
  });

  describe('limits', () => {
    it('a claimer that comes after another in the same rate window gets what the window has left, and nothing once used up', async () => {
      const start = Date.now();
      await storage.declareLimits([{ queue: 'rated', max: 3, duration: 1000 }], start);
      for (let i = 0; i < 6; i++) await add('rated', { runAt: start - 1 });
      const request = [{ queue: 'rated', limit: 2, rateLimited: true }];
      expect(await storage.claim(request, A, start, LEASE)).toHaveLength(2);
      expect(await storage.claim(request, B, start + 500, LEASE)).toHaveLength(1);
      expect(await storage.claim(request, B, start + 999, LEASE)).toEqual([]);
      expect(await storage.limitedUntil(['rated'], start + 999)).toEqual(new Map([['rated', start + 1000]]));
      // A new window opens at the end of the first.
      expect(await storage.claim(request, B, start + 1000, LEASE)).toHaveLength(2);
    });

    it('a claimer that comes after another in a globally limited queue gets only the slots left', async () => {
      for (let i = 0; i < 4; i++) await add('global');
      const request = (limit: number) => [{ queue: 'global', limit, globalConcurrency: 2 }];
      const [one] = await storage.claim(request(1), A, Date.now(), LEASE);
      expect(await storage.claim(request(5), B, Date.now(), LEASE)).toHaveLength(1);
      expect(await storage.claim(request(5), B, Date.now(), LEASE)).toEqual([]);
      await storage.completeMany([{ ref: ref(one), result: null }], A, Date.now());
      expect(await storage.claim(request(5), B, Date.now(), LEASE)).toHaveLength(1);
    });

    it("a RateLimitError's pause shorter than one already in place does not shorten it", async () => {
      const now = Date.now();
      await add('paused');
      const first = await claimOne('paused', A);
      await add('paused');
      const second = await claimOne('paused', B);
      expect(await storage.rateLimit('paused', ref(first), A, now + 60_000, now)).toBe(true);
      expect(await storage.rateLimit('paused', ref(second), B, now + 1000, now)).toBe(true);
      expect(await storage.limitedUntil(['paused'], now)).toEqual(new Map([['paused', now + 60_000]]));
    });
  });
});
