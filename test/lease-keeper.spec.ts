/**
 * The lease keeper on fake timers with a stand-in storage: the heartbeat renews exactly the attempts held, on
 * its beat, and keeps that beat through an outage; recovery runs at start and every max(poll, lease / 2) and
 * backs off while failing; cancellations made elsewhere reach the hook.
 */
import { Logger } from '@nestjs/common';
import { LeaseKeeper, LeaseKeeperHooks } from '../lib/poller/lease-keeper';
import { AttemptRef, ExpiredLease, QueueStorage, RecoveredJob } from '../lib/storage/queue-storage.interface';

const settings = { workerId: 'w1', leaseDuration: 30_000, pollInterval: 1000 };
/** min(lease / 3, poll). */
const BEAT = 1000;
/** max(poll, lease / 2). */
const RECOVERY = 15_000;

function setUp(held: AttemptRef[] = [], { skipsFreshLeases = false, leaseDuration = settings.leaseDuration } = {}) {
  const storage = {
    skipsFreshLeases,
    extendLeases: jest.fn(async (_refs: AttemptRef[], _workerId: string, _lease: number, _now: number) => undefined),
    findCancelled: jest.fn(async (_refs: AttemptRef[], _workerId: string): Promise<string[]> => []),
    recoverExpiredLeases: jest.fn(async (_now: number, _jitter: number, _skip?: readonly string[]): Promise<RecoveredJob[]> => []),
    recoverExpiredLease: jest.fn(async (_id: string, _now: number, _jitter: number): Promise<RecoveredJob | null> => null),
    findExpiredLeases: jest.fn(async (_now: number, _skip: readonly string[]): Promise<ExpiredLease[]> => []),
  };
  const hooks: LeaseKeeperHooks & { held: AttemptRef[] } = {
    held,
    heldAttempts: () => hooks.held,
    onCancelled: jest.fn(),
    onRecovered: jest.fn(),
  };
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const warnings = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  const keeper = new LeaseKeeper(storage as unknown as QueueStorage, { ...settings, leaseDuration }, logger, hooks);
  return { keeper, storage, hooks, errors, warnings };
}

describe('LeaseKeeper', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('renews exactly the attempts held, once per beat, with the lease duration, and nothing while nothing is held', async () => {
    const { keeper, storage, hooks } = setUp();
    keeper.start();
    await jest.advanceTimersByTimeAsync(3 * BEAT);
    expect(storage.extendLeases).not.toHaveBeenCalled();
    hooks.held = [
      { id: '1', attempt: 1 },
      { id: '7', attempt: 2 },
    ];
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(storage.extendLeases).toHaveBeenCalledTimes(1);
    expect(storage.extendLeases).toHaveBeenLastCalledWith(hooks.held, 'w1', settings.leaseDuration, Date.now());
    hooks.held = [{ id: '7', attempt: 2 }];
    await jest.advanceTimersByTimeAsync(4 * BEAT);
    expect(storage.extendLeases).toHaveBeenCalledTimes(5);
    expect(storage.extendLeases.mock.calls[4][0]).toEqual([{ id: '7', attempt: 2 }]);
    await keeper.stop();
  });

  it('beats every third of the lease when the lease is shorter than three poll intervals (two missed beats of slack)', async () => {
    // A 900 ms lease polled each second: a beat of one poll interval would let the lease run out between two beats.
    const { keeper, storage } = setUp([{ id: '1', attempt: 1 }], { leaseDuration: 900 });
    keeper.start();
    await jest.advanceTimersByTimeAsync(299);
    expect(storage.extendLeases).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(storage.extendLeases).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(600);
    expect(storage.extendLeases).toHaveBeenCalledTimes(3);
    await keeper.stop();
  });

  it('where the storage allows it (PostgreSQL), leaves out of the renewal attempts claimed within the last beat, but not out of the cancellation check', async () => {
    const claimedAt = new Map<string, number>();
    const { keeper, storage, hooks } = setUp([], { skipsFreshLeases: true });
    hooks.heldAttempts = (claimedBefore = Infinity) => hooks.held.filter((ref) => claimedAt.get(ref.id)! < claimedBefore);
    keeper.start();
    const old = { id: '1', attempt: 1 };
    const fresh = { id: '2', attempt: 1 };
    claimedAt.set('1', Date.now() - 1);
    hooks.held = [old];
    await jest.advanceTimersByTimeAsync(BEAT / 2);
    claimedAt.set('2', Date.now());
    hooks.held = [old, fresh];
    await jest.advanceTimersByTimeAsync(BEAT / 2);
    // Beat 1: job 1 was claimed a beat ago, job 2 half a beat ago.
    expect(storage.extendLeases).toHaveBeenCalledTimes(1);
    expect(storage.extendLeases.mock.calls[0][0]).toEqual([old]);
    expect(storage.findCancelled).toHaveBeenLastCalledWith([old, fresh], 'w1');
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(storage.extendLeases.mock.calls[1][0]).toEqual([old, fresh]);
    // Only fresh attempts held: no renewal statement, the cancellation check still runs.
    claimedAt.set('3', Date.now());
    hooks.held = [{ id: '3', attempt: 1 }];
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(storage.extendLeases).toHaveBeenCalledTimes(2);
    expect(storage.findCancelled).toHaveBeenCalledTimes(3);
    await keeper.stop();
  });

  it('renews every held attempt at every beat when the lease is only three beats long, even where the storage allows skipping', async () => {
    const { keeper, storage, hooks } = setUp([{ id: '1', attempt: 1 }], { skipsFreshLeases: true, leaseDuration: 3 * BEAT });
    const asked: (number | undefined)[] = [];
    hooks.heldAttempts = (claimedBefore?: number) => (asked.push(claimedBefore), hooks.held);
    keeper.start();
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(storage.extendLeases).toHaveBeenCalledTimes(1);
    expect(asked).toEqual([undefined]);
    await keeper.stop();
  });

  it('hands attempts cancelled by another process to onCancelled', async () => {
    const { keeper, storage, hooks } = setUp([
      { id: '3', attempt: 1 },
      { id: '4', attempt: 1 },
    ]);
    storage.findCancelled.mockResolvedValueOnce(['4']);
    keeper.start();
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(storage.findCancelled).toHaveBeenCalledWith(hooks.held, 'w1');
    expect(hooks.onCancelled).toHaveBeenCalledWith(['4']);
    await jest.advanceTimersByTimeAsync(BEAT);
    expect(hooks.onCancelled).toHaveBeenCalledTimes(1);
    await keeper.stop();
  });

  it('keeps its beat through an outage, logging it once', async () => {
    const { keeper, storage, errors } = setUp([{ id: '1', attempt: 1 }]);
    storage.extendLeases.mockRejectedValue(new Error('database is down'));
    keeper.start();
    await jest.advanceTimersByTimeAsync(20 * BEAT);
    expect(storage.extendLeases).toHaveBeenCalledTimes(20);
    expect(errors.mock.calls.filter(([line]) => /Heartbeat/.test(String(line)))).toHaveLength(1);
    await keeper.stop();
  });

  it('recovers expired leases at start and every max(poll, lease / 2), and reports what it took back', async () => {
    const { keeper, storage, hooks } = setUp();
    const job: RecoveredJob = { id: '9', queue: 'q', attempts: 1, status: 'pending', runAt: Date.now() + 500 };
    storage.recoverExpiredLeases.mockResolvedValueOnce([job]);
    keeper.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(storage.recoverExpiredLeases).toHaveBeenCalledTimes(1);
    expect(storage.recoverExpiredLeases.mock.calls[0][1]).toBe(10_000);
    expect(hooks.onRecovered).toHaveBeenCalledWith([job]);
    await jest.advanceTimersByTimeAsync(RECOVERY - 1);
    expect(storage.recoverExpiredLeases).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(storage.recoverExpiredLeases).toHaveBeenCalledTimes(2);
    await jest.advanceTimersByTimeAsync(2 * RECOVERY);
    expect(storage.recoverExpiredLeases).toHaveBeenCalledTimes(4);
    expect(hooks.onRecovered).toHaveBeenCalledTimes(1);
    await keeper.stop();
  });

  it('logs a failing recovery once, tries it at most once per period; stop() waits for a statement and ends both loops', async () => {
    const { keeper, storage, errors } = setUp([{ id: '1', attempt: 1 }]);
    storage.recoverExpiredLeases.mockRejectedValue(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    keeper.start();
    await jest.advanceTimersByTimeAsync(10 * RECOVERY);
    // Its back-off is capped at max(period, 5 s): the period itself here.
    expect(storage.recoverExpiredLeases.mock.calls.length).toBeLessThanOrEqual(11);
    expect(errors.mock.calls.filter(([line]) => /Recovering expired leases/.test(String(line)))).toHaveLength(1);

    let release!: () => void;
    storage.extendLeases.mockImplementationOnce(() => new Promise<undefined>((done) => (release = () => done(undefined))));
    await jest.advanceTimersByTimeAsync(BEAT);
    let stopped = false;
    const stopping = keeper.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    const calls = storage.extendLeases.mock.calls.length + storage.recoverExpiredLeases.mock.calls.length;
    await jest.advanceTimersByTimeAsync(10 * RECOVERY);
    expect(storage.extendLeases.mock.calls.length + storage.recoverExpiredLeases.mock.calls.length).toBe(calls);
  });

  it('recovers the other jobs one by one when one job makes the recovery statement fail, logs that job once and leaves it out', async () => {
    const { keeper, storage, hooks, errors } = setUp();
    const job = (id: string): RecoveredJob => ({ id, queue: 'q', attempts: 1, status: 'pending', runAt: Date.now() });
    const refused = Object.assign(new Error('SQLITE_ERROR: too many levels of trigger recursion'), { code: 'SQLITE_ERROR' });
    storage.recoverExpiredLeases.mockImplementation(async (_now, _jitter, skip = []) => {
      if (!skip.includes('2')) throw refused;
      return [];
    });
    storage.findExpiredLeases.mockResolvedValueOnce([
      { id: '1', queue: 'a' },
      { id: '2', queue: 'poison' },
      { id: '3', queue: 'b' },
    ]);
    storage.recoverExpiredLease.mockImplementation(async (id) => {
      if (id === '2') throw refused;
      return job(id);
    });
    keeper.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(hooks.onRecovered).toHaveBeenCalledWith([job('1')]);
    expect(hooks.onRecovered).toHaveBeenCalledWith([job('3')]);
    const logged = () => errors.mock.calls.filter(([line]) => /Job 2 \(queue poison\)/.test(String(line)));
    expect(logged()).toHaveLength(1);
    expect(String(logged()[0][0])).toContain('too many levels of trigger recursion');

    // Later passes: one statement for the others, without it; it alone, quietly, until the database takes it.
    await jest.advanceTimersByTimeAsync(2 * RECOVERY);
    expect(storage.recoverExpiredLeases).toHaveBeenLastCalledWith(expect.any(Number), expect.any(Number), ['2']);
    expect(storage.findExpiredLeases).toHaveBeenCalledTimes(1);
    expect(storage.recoverExpiredLease.mock.calls.filter(([id]) => id === '2')).toHaveLength(4);
    expect(logged()).toHaveLength(1);
    expect(errors.mock.calls.filter(([line]) => /Recovering expired leases/.test(String(line)))).toEqual([]);
    storage.recoverExpiredLease.mockImplementation(async (id) => job(id));
    await jest.advanceTimersByTimeAsync(RECOVERY);
    expect(hooks.onRecovered).toHaveBeenLastCalledWith([job('2')]);
    await jest.advanceTimersByTimeAsync(RECOVERY);
    expect(storage.recoverExpiredLeases).toHaveBeenLastCalledWith(expect.any(Number), expect.any(Number), []);
    await keeper.stop();
  });

  it('does not recover one by one when the statement failed on an error a retry can get past', async () => {
    const { keeper, storage, errors } = setUp();
    storage.recoverExpiredLeases.mockRejectedValue(Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }));
    keeper.start();
    await jest.advanceTimersByTimeAsync(3 * RECOVERY);
    expect(storage.findExpiredLeases).not.toHaveBeenCalled();
    expect(storage.recoverExpiredLease).not.toHaveBeenCalled();
    expect(errors.mock.calls.filter(([line]) => /Recovering expired leases/.test(String(line)))).toHaveLength(1);
    await keeper.stop();
  });
});
