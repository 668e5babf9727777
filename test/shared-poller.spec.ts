/**
 * The shared poller on a fake clock, with stand-in storage and pool (no database). Timed wake-ups: with a poll
 * interval of ten minutes, only `wakeAt` can bring a claim for a job that falls due soon, so a lost wake-up
 * shows as a job not claimed. Then the pipeline: wake-ups merged into one claim, claims never overlapping,
 * claiming again while a queue gets its full limit, jobs claimed during stop handed back, the back-off.
 */
import { Logger } from '@nestjs/common';
import { Subject } from 'rxjs';
import { SlotWaitEstimate } from '../lib/poller/slot-wait-estimate';
import { SharedPoller } from '../lib/poller/shared-poller';
import { WorkerPool } from '../lib/poller/worker-pool';
import { AttemptRef, ClaimRequest, JobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';
import { MAX_OUTAGE_BACKOFF_MS } from '../lib/utils/failure-streak';

const POLL_INTERVAL = 600_000;

function record(id: string, runAt: number, queue = 'q', priority = 0): JobRecord {
  return {
    id,
    queue,
    status: 'pending',
    data: '{}',
    priority,
    runAt,
    attempts: 0,
    maxAttempts: 3,
    backoff: null,
    timeout: null,
    key: null,
    lockedBy: null,
    leaseUntil: null,
    result: null,
    error: null,
    progress: null,
    createdAt: runAt,
    startedAt: null,
    finishedAt: null,
    updatedAt: runAt,
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

describe('SharedPoller and a rate-limited queue', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  /** A queue limited to `max` claims per `duration` ms, its window kept like the SQL keeps it. */
  function limitedSetUp(max: number, duration: number) {
    const pending: JobRecord[] = [];
    const claimed: { id: string; at: number }[] = [];
    let windowStart = -Infinity;
    let windowCount = 0;
    const storage = {
      insertHints$: new Subject<void>(),
      claim: async (requests: ClaimRequest[], _workerId: string, now: number) => {
        if (windowStart + duration <= now) [windowStart, windowCount] = [now, 0];
        const take = pending.splice(0, Math.min(requests[0]?.limit ?? 0, max - windowCount));
        windowCount += take.length;
        take.forEach((job) => claimed.push({ id: job.id, at: now }));
        return take;
      },
      limitedUntil: async (_queues: string[], now: number) =>
        windowCount >= max && windowStart + duration > now ? new Map([['q', windowStart + duration]]) : new Map(),
      release: async () => 0,
    } as unknown as QueueStorage;
    const pool = {
      claimRequests: () => [{ queue: 'q', limit: 10, rateLimited: true }],
      rateWindowOf: () => duration,
    } as unknown as WorkerPool;
    const settings = { workerId: 'w', pollInterval: POLL_INTERVAL, batchWindow: 0, batchSize: 10, leaseDuration: 30_000 };
    const poller = new SharedPoller(storage, pool, settings, new Logger('test'));
    return { poller, pending, claimed, storage };
  }

  it('jobs added right after a read found the queue empty are still claimed window after window, without the fallback poll', async () => {
    const { poller, pending, claimed, storage } = limitedSetUp(3, 300);
    poller.start();
    // The first round finds nothing, and the read after it finds the queue open: drained.
    await jest.advanceTimersByTimeAsync(1);
    // Within the queue's check gap (30 ms), nine jobs come: a round takes three and comes back short, too soon
    // after the last read to ask again; no job of this process finishes to wake the poller after that.
    for (let i = 0; i < 9; i++) pending.push(record(`j${i}`, Date.now() - 1));
    (storage.insertHints$ as Subject<void>).next();
    await jest.advanceTimersByTimeAsync(1);
    expect(claimed).toHaveLength(3);
    await jest.advanceTimersByTimeAsync(1000);
    expect(claimed).toHaveLength(9);
    // One window after another, not a poll interval later.
    expect(claimed[8].at - claimed[0].at).toBeLessThan(1000);
    await poller.stop();
  });
});

/** A claim the test settles by hand: holds a claim in flight. */
interface HeldClaim {
  requests: ClaimRequest[];
  resolve(jobs: JobRecord[]): void;
  reject(error: Error): void;
}

function pipelineSetUp(settings: { pollInterval?: number; batchWindow?: number; requests?: ClaimRequest[] } = {}) {
  const held: HeldClaim[] = [];
  let active = 0;
  let mostActive = 0;
  const claim = jest.fn(
    (requests: ClaimRequest[]) =>
      new Promise<JobRecord[]>((resolve, reject) => {
        active++;
        mostActive = Math.max(mostActive, active);
        const settle =
          <T>(done: (value: T) => void) =>
          (value: T) => {
            active--;
            done(value);
          };
        held.push({ requests, resolve: settle(resolve), reject: settle(reject) });
      }),
  );
  const release = jest.fn(async (_refs: AttemptRef[]) => 0);
  const storage = { insertHints$: new Subject<void>(), claim, release } as unknown as QueueStorage;
  const claimRequests = jest.fn(() => settings.requests ?? [{ queue: 'q', limit: 10 }]);
  const pool = { claimRequests } as unknown as WorkerPool;
  const logger = new Logger('test');
  const errors = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  const logs = jest.spyOn(logger, 'log').mockImplementation(() => undefined);
  const poller = new SharedPoller(
    storage,
    pool,
    {
      workerId: 'w',
      pollInterval: settings.pollInterval ?? POLL_INTERVAL,
      batchWindow: settings.batchWindow ?? 5,
      batchSize: 10,
      leaseDuration: 30_000,
    },
    logger,
  );
  const routed: JobRecord[] = [];
  // Every queue these tests claim for: each routed job arrives on its own queue's stream.
  for (const queue of ['q', 'a', 'b']) poller.jobsOf(queue).subscribe((job) => routed.push(job));
  return { poller, storage, claim, release, held, routed, claimRequests, errors, logs, mostActive: () => mostActive };
}

/** Settles the oldest claim still held. */
function next(held: HeldClaim[]): HeldClaim {
  const claim = held.shift();
  if (!claim) throw new Error('no claim in flight');
  return claim;
}

describe('SharedPoller pipeline', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => {
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('claims once at start, then merges the wake-ups of one batch window into one claim', async () => {
    const { poller, claim, held } = pipelineSetUp({ batchWindow: 20 });
    poller.start();
    await jest.advanceTimersByTimeAsync(20);
    expect(claim).toHaveBeenCalledTimes(1);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(100);
    for (let i = 0; i < 10; i++) poller.wake();
    await jest.advanceTimersByTimeAsync(20);
    expect(claim).toHaveBeenCalledTimes(2);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(1000);
    expect(claim).toHaveBeenCalledTimes(2);
    await poller.stop();
  });

  it('never runs two claims at once; wake-ups during a claim bring exactly one more after it', async () => {
    const { poller, claim, held, mostActive } = pipelineSetUp();
    poller.start();
    await jest.advanceTimersByTimeAsync(10);
    expect(claim).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 5; i++) {
      poller.wake();
      await jest.advanceTimersByTimeAsync(10);
    }
    expect(claim).toHaveBeenCalledTimes(1);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(10);
    expect(claim).toHaveBeenCalledTimes(2);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(100);
    expect(claim).toHaveBeenCalledTimes(2);
    expect(mostActive()).toBe(1);
    await poller.stop();
  });

  it('claims again at once while a queue gets its full limit, and routes the jobs in claim order', async () => {
    const requests = [
      { queue: 'a', limit: 2 },
      { queue: 'b', limit: 3 },
    ];
    const { poller, claim, held, routed } = pipelineSetUp({ requests });
    poller.start();
    await jest.advanceTimersByTimeAsync(10);
    // a gets its full limit (2 of 2), in no particular order: claim order is priority, then run time, then id.
    next(held).resolve([record('2', 5, 'a'), record('9', 1, 'b', 1), record('1', 5, 'a')]);
    await jest.advanceTimersByTimeAsync(10);
    expect(routed.map((job) => job.id)).toEqual(['9', '1', '2']);
    expect(claim).toHaveBeenCalledTimes(2);
    // Neither queue full: no more claims until a wake-up or the (ten-minute) poll.
    next(held).resolve([record('3', 1, 'a'), record('4', 1, 'b')]);
    await jest.advanceTimersByTimeAsync(60_000);
    expect(claim).toHaveBeenCalledTimes(2);
    expect(routed).toHaveLength(5);
    await poller.stop();
  });

  it('makes no claim while no queue has a free slot, but still counts the round as its pulse', async () => {
    const { poller, claim, claimRequests } = pipelineSetUp({ requests: [], pollInterval: 1000 });
    poller.start();
    await jest.advanceTimersByTimeAsync(3500);
    expect(claim).not.toHaveBeenCalled();
    expect(claimRequests).toHaveBeenCalledTimes(4);
    expect(poller.lastRoundAt).toBeGreaterThan(Date.now() - 1000);
    await poller.stop();
  });

  it("tells the workers' lookahead how long a freed slot waits: from its wake-up to the answer, a claim still in flight included", async () => {
    const { poller, held, claimRequests } = pipelineSetUp({ batchWindow: 5 });
    const roundTrips = (): number[] => claimRequests.mock.calls.map((call) => (call as unknown[])[2] as number);
    poller.start();
    await jest.advanceTimersByTimeAsync(5);
    // The first round (the fallback tick's: no wake-up to time from) is timed from its statement: 10 ms.
    await jest.advanceTimersByTimeAsync(10);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(0);
    poller.wake();
    await jest.advanceTimersByTimeAsync(5);
    expect(held).toHaveLength(1);
    // A slot frees while that claim is out: its job comes from the round after, 25 ms after its wake-up, of which
    // the claim that answers it took 20 (the first wake-up's round: 15 ms, the batch window included).
    await jest.advanceTimersByTimeAsync(5);
    poller.wake();
    await jest.advanceTimersByTimeAsync(5);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(20);
    next(held).resolve([]);
    await jest.advanceTimersByTimeAsync(0);
    poller.wake();
    await jest.advanceTimersByTimeAsync(5);
    // The waits measured are 10, 15 and 25 ms; each claim plans for the estimate of the waits before it.
    const estimate = new SlotWaitEstimate();
    const planned = [estimate.plannedMs];
    for (const waited of [10, 15, 25]) {
      estimate.record(waited);
      planned.push(estimate.plannedMs);
    }
    expect(roundTrips()).toEqual(planned);
    next(held).resolve([]);
    await poller.stop();
  });

  it('stop() waits for the claim in flight and hands its jobs back instead of routing them', async () => {
    const { poller, held, release, routed, claim } = pipelineSetUp();
    poller.start();
    await jest.advanceTimersByTimeAsync(10);
    let stopped = false;
    const stopping = poller.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(10);
    expect(stopped).toBe(false);
    const job = record('7', 1);
    job.attempts = 1;
    next(held).resolve([job]);
    await stopping;
    expect(release).toHaveBeenCalledWith([{ id: '7', attempt: 1 }], 'w', expect.any(Number));
    expect(routed).toEqual([]);
    poller.wake();
    await jest.advanceTimersByTimeAsync(POLL_INTERVAL);
    expect(claim).toHaveBeenCalledTimes(1);
    await poller.stop();
  });

  it('logs a failing claim once, backs off up to max(poll, 5 s) whatever the wake-ups, and resets once it works', async () => {
    const { poller, claim, held, errors, logs } = pipelineSetUp({ pollInterval: 100 });
    const tries: number[] = [];
    claim.mockImplementation(async () => {
      tries.push(Date.now());
      if (tries.length <= 12) throw new Error('database is down');
      return [];
    });
    poller.start();
    // Wake-ups all along: none of them may cut a back-off short.
    const waking = setInterval(() => poller.wake(), 30);
    await jest.advanceTimersByTimeAsync(36_000);
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0][0])).toMatch(/Claiming jobs failed/);
    const gaps = tries.slice(1, 13).map((at, i) => at - tries[i]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(MAX_OUTAGE_BACKOFF_MS + 100);
    expect(gaps[gaps.length - 1]).toBeGreaterThanOrEqual(MAX_OUTAGE_BACKOFF_MS);
    expect(gaps[0]).toBeLessThan(200);
    expect(logs).toHaveBeenCalledTimes(1);
    // Working again: claims at the pace of the wake-ups, no back-off left.
    const before = tries.length;
    await jest.advanceTimersByTimeAsync(1000);
    expect(tries.length - before).toBeGreaterThan(15);
    clearInterval(waking);
    expect(held).toHaveLength(0);
    await poller.stop();
  });
});
