/**
 * The retention keeper on fake timers with a stand-in storage: nothing runs while no queue finished jobs; a
 * queue that did gets bounded DELETEs per outcome within a period, repeated while batches come back full (up to a bound);
 * an age bound waits for the jobs to reach their age; sweeps never overlap; a failure is logged once.
 */
import { Logger } from '@nestjs/common';
import { MAX_BATCHES_PER_SWEEP, QueueRetention, RETENTION_BATCH, RetentionKeeper } from '../lib/housekeeping/retention-keeper';
import { QueueStorage, RetentionRule } from '../lib/storage/queue-storage.interface';

const PERIOD = 1000;

function setUp(retention: Record<string, QueueRetention>) {
  const storage = {
    applyRetention: jest.fn(async (_queue: string, _status: string, _rule: RetentionRule, _limit: number) => 0),
  };
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const logs = jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  const keeper = new RetentionKeeper(storage as unknown as QueueStorage, (queue) => retention[queue] ?? {}, PERIOD, logger);
  return { keeper, storage, errors, logs };
}

/**
 * Advances the fake clock by `ms`, then lets the turns of the event loop a sweep yields between its batches pass: the
 * fake clock runs a `setImmediate` scheduled at the end of an advance only once it moves on, so 1 ms per turn (far
 * below a period).
 */
async function advance(ms: number): Promise<void> {
  await jest.advanceTimersByTimeAsync(ms);
  for (let turn = 0; turn < MAX_BATCHES_PER_SWEEP + 5; turn++) await jest.advanceTimersByTimeAsync(1);
}

describe('RetentionKeeper', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('runs no statement while no queue finished a job, nor for queues or outcomes that keep everything', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: false }, b: { removeOnFail: 5 } });
    keeper.start();
    await jest.advanceTimersByTimeAsync(10 * PERIOD);
    keeper.mark('a', 'completed');
    keeper.mark('b', 'completed');
    keeper.mark('b', 'cancelled');
    keeper.mark('unknown', 'failed');
    await jest.advanceTimersByTimeAsync(10 * PERIOD);
    expect(storage.applyRetention).not.toHaveBeenCalled();
    await keeper.stop();
    expect(storage.applyRetention).not.toHaveBeenCalled();
  });

  it('a queue that finished jobs gets one bounded DELETE per outcome within a period, however many jobs finished', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: 10, removeOnFail: true } });
    keeper.start();
    for (let i = 0; i < 500; i++) keeper.mark('a', 'completed');
    keeper.mark('a', 'failed');
    await jest.advanceTimersByTimeAsync(PERIOD);
    expect(storage.applyRetention.mock.calls).toEqual([
      ['a', 'completed', { maxCount: 10 }, RETENTION_BATCH],
      ['a', 'failed', { maxCount: 0 }, RETENTION_BATCH],
    ]);
    await jest.advanceTimersByTimeAsync(10 * PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(2);
    await keeper.stop();
  });

  it('goes on while batches come back full, in the same sweep', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: true } });
    storage.applyRetention.mockResolvedValueOnce(RETENTION_BATCH).mockResolvedValueOnce(RETENTION_BATCH).mockResolvedValueOnce(3);
    keeper.start();
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(10 * PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(3);
    await keeper.stop();
  });

  it('lets the event loop turn between the batches of a sweep (better-sqlite3 answers without yielding)', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: true } });
    const order: string[] = [];
    storage.applyRetention.mockImplementation(async () => {
      order.push('delete');
      // Scheduled as I/O callbacks are: they must run before the next delete of this sweep, not after the sweep.
      setImmediate(() => order.push('turn'));
      return order.filter((entry) => entry === 'delete').length < 3 ? RETENTION_BATCH : 0;
    });
    keeper.start();
    keeper.mark('a', 'completed');
    await advance(PERIOD);
    expect(order).toEqual(['delete', 'turn', 'delete', 'turn', 'delete', 'turn']);
    await keeper.stop();
  });

  it('deletes at most MAX_BATCHES_PER_SWEEP full batches per sweep, and goes on in the next period', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: true } });
    storage.applyRetention.mockResolvedValue(RETENTION_BATCH);
    keeper.start();
    keeper.mark('a', 'completed');
    await advance(PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(MAX_BATCHES_PER_SWEEP);
    await advance(PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(2 * MAX_BATCHES_PER_SWEEP);
    storage.applyRetention.mockResolvedValue(0);
    await advance(PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(2 * MAX_BATCHES_PER_SWEEP + 1);
    await advance(5 * PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(2 * MAX_BATCHES_PER_SWEEP + 1);
    await keeper.stop();
  });

  it('an age bound runs once the jobs noted reach that age, and again for jobs that finished later', async () => {
    const age = 60_000;
    const { keeper, storage } = setUp({ a: { removeOnComplete: { age } } });
    keeper.start();
    const first = Date.now();
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(age / 2);
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(age / 2 - PERIOD);
    expect(storage.applyRetention).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(1);
    expect(storage.applyRetention.mock.calls[0][2]).toEqual({ maxCount: undefined, finishedBefore: first });
    // Until the later job reaches its age, a sweep every max(period, age / 10): bounded, and one lands within
    // age / 10 of that age.
    const second = first + age / 2;
    await jest.advanceTimersByTimeAsync(age / 2 + age / 10);
    const calls = storage.applyRetention.mock.calls;
    expect(calls.length).toBeLessThanOrEqual(2 + (age / 2 + age / 10) / (age / 10));
    expect(calls[calls.length - 1][2].finishedBefore).toBeGreaterThanOrEqual(second);
    await keeper.stop();
  });

  it('an age bound keeps a job announced while a sweep of its queue runs: it is swept once it reaches its age', async () => {
    const age = 60_000;
    const { keeper, storage } = setUp({ a: { removeOnComplete: { age } } });
    keeper.start();
    const first = Date.now();
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(age / 2);
    keeper.mark('a', 'completed');
    // The first sweep's DELETE is in flight when a third job's completion is announced.
    let late = 0;
    storage.applyRetention.mockImplementationOnce(async () => {
      late = Date.now();
      keeper.mark('a', 'completed');
      return 0;
    });
    await jest.advanceTimersByTimeAsync(age / 2);
    expect(storage.applyRetention.mock.calls[0][2]).toEqual({ maxCount: undefined, finishedBefore: first });
    expect(late).toBeGreaterThan(first);
    // The late job's age is reached one age after its note; some sweep by then (plus a period) covers it.
    await jest.advanceTimersByTimeAsync(age + 2 * PERIOD);
    const calls = storage.applyRetention.mock.calls;
    expect(calls[calls.length - 1][2].finishedBefore).toBeGreaterThanOrEqual(late);
    await keeper.stop();
  });

  it('never overlaps itself: a slow DELETE holds the next sweep back', async () => {
    const { keeper, storage } = setUp({ a: { removeOnComplete: true }, b: { removeOnComplete: true } });
    let finish!: (deleted: number) => void;
    storage.applyRetention.mockImplementationOnce(() => new Promise<number>((done) => (finish = done)));
    keeper.start();
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(PERIOD);
    keeper.mark('b', 'completed');
    await jest.advanceTimersByTimeAsync(5 * PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(1);
    finish(1);
    await jest.advanceTimersByTimeAsync(PERIOD);
    expect(storage.applyRetention.mock.calls.map(([queue]) => queue)).toEqual(['a', 'b']);
    await keeper.stop();
  });

  it('logs a failing DELETE once, retries it after the back-off, logs the recovery, and sweeps at stop', async () => {
    const { keeper, storage, errors, logs } = setUp({ a: { removeOnComplete: true } });
    storage.applyRetention.mockRejectedValueOnce(new Error('down')).mockRejectedValueOnce(new Error('down'));
    keeper.start();
    keeper.mark('a', 'completed');
    await jest.advanceTimersByTimeAsync(10 * PERIOD);
    expect(storage.applyRetention).toHaveBeenCalledTimes(3);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0][0])).toMatch(/Applying retention failed.*completed jobs of queue a: down/);
    expect(logs).toHaveBeenCalledTimes(1);
    keeper.mark('a', 'completed');
    await keeper.stop();
    expect(storage.applyRetention).toHaveBeenCalledTimes(4);
  });
});
