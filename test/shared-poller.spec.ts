/**
 * The poller's timed wake-ups, on a fake clock: with a poll interval of ten minutes, only `wakeAt` can bring a
 * claim for a job that falls due soon, so a lost wake-up shows as a job not claimed.
 */
import { Logger } from '@nestjs/common';
import { Subject } from 'rxjs';
import { SharedPoller } from '../lib/poller/shared-poller';
import { WorkerPool } from '../lib/poller/worker-pool';
import { ClaimRequest, JobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';

const POLL_INTERVAL = 600_000;

function record(id: string, runAt: number): JobRecord {
  return {
    id, queue: 'q', status: 'pending', data: '{}', priority: 0, runAt, attempts: 0, maxAttempts: 3, backoff: null,
    timeout: null, key: null, lockedBy: null, leaseUntil: null, result: null, error: null, progress: null,
    createdAt: runAt, startedAt: null, finishedAt: null, updatedAt: runAt,
  };
}

/** A storage that holds pending jobs in memory and claims, like the SQL, only those due at the claim's `now`. */
function setUp() {
  const pending: JobRecord[] = [];
  const claimedAt = new Map<string, number>();
  const storage = {
    insertHints$: new Subject<void>(),
    claim: async (requests: ClaimRequest[], _workerId: string, now: number) => {
      const due = pending.filter((job) => job.runAt <= now).slice(0, requests[0]?.limit ?? 0);
      for (const job of due) {
        pending.splice(pending.indexOf(job), 1);
        claimedAt.set(job.id, now);
      }
      return due;
    },
    release: async () => 0,
  } as unknown as QueueStorage;
  const pool = { claimRequests: () => [{ queue: 'q', limit: 10 }] } as unknown as WorkerPool;
  const settings = { workerId: 'w', pollInterval: POLL_INTERVAL, batchWindow: 0, batchSize: 10, leaseDuration: 30_000 };
  const poller = new SharedPoller(storage, pool, settings, new Logger('test'));
  return { poller, pending, claimedAt };
}

describe('SharedPoller timed wake-ups', () => {
  /** How far Date.now() lags the timers' clock: what a timer firing "early" looks like to the poller. */
  let lag = 0;

  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    const clockNow = Date.now.bind(Date);
    lag = 0;
    jest.spyOn(Date, 'now').mockImplementation(() => clockNow() - lag);
  });
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('a timer that fires before Date.now() reaches its time still brings the claim, a moment later', async () => {
    const { poller, pending, claimedAt } = setUp();
    poller.start();
    await jest.advanceTimersByTimeAsync(0);
    const start = Date.now();
    for (let round = 0; round < 20; round++) {
      lag = 0;
      const dueAt = Date.now() + 50;
      const job = record(String(round), dueAt);
      pending.push(job);
      poller.wakeAt(dueAt);
      // From here on the wall clock is a millisecond behind the clock the timer was armed on.
      lag = 1;
      await jest.advanceTimersByTimeAsync(50);
      await jest.advanceTimersByTimeAsync(5);
      expect(claimedAt.get(job.id)).toBe(dueAt);
    }
    expect(Date.now() - start).toBeLessThan(POLL_INTERVAL);
    await poller.stop();
  });

  it('wakes for each of several due times, so jobs due apart are claimed apart', async () => {
    const { poller, pending, claimedAt } = setUp();
    poller.start();
    await jest.advanceTimersByTimeAsync(0);
    const now = Date.now();
    const times = [now + 300, now + 40, now + 120, now + 121];
    times.forEach((at, i) => pending.push(record(`j${i}`, at)));
    for (const at of times) poller.wakeAt(at);
    await jest.advanceTimersByTimeAsync(1000);
    times.forEach((at, i) => expect(claimedAt.get(`j${i}`)).toBe(at));
    await poller.stop();
  });
});
