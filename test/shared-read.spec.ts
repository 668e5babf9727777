/**
 * The dashboard's reads run on the connection claims wait for, and a long busy history makes them slow (counting a
 * million rows, a full metrics sample). Open tabs share one read; a read is kept at least a second and twenty times
 * as long as it took, so the dashboard never takes more than about a twentieth of the database's time; a failed
 * read is not kept; an action drops the kept queue counts. On a fake clock, with stand-in reads.
 */
import { DashboardApi } from '../lib/dashboard/dashboard-api.service';
import { resolveDashboardOptions } from '../lib/dashboard/resolve-dashboard-options';
import { SharedRead } from '../lib/dashboard/shared-read';
import type { QueueAdmin, QueueProducer } from '../lib';

/** A read that takes `ms()` on the fake clock, counting its calls; `failNext()` makes the next one reject. */
function timedRead<T>(value: T, ms: () => number) {
  const calls: number[] = [];
  let failNext = false;
  const read = jest.fn(
    () =>
      new Promise<T>((resolve, reject) => {
        calls.push(Date.now());
        const fail = failNext;
        failNext = false;
        setTimeout(() => (fail ? reject(new Error('database busy')) : resolve(value)), ms());
      }),
  );
  return { read, calls, failNext: () => (failNext = true) };
}

describe('SharedRead', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('shares a read in flight, and keeps a slow one twenty times as long as it took', async () => {
    const { read, calls } = timedRead('v', () => 300);
    const shared = new SharedRead(read, 1000, 20);
    const both = Promise.all([shared.get(), shared.get()]);
    await jest.advanceTimersByTimeAsync(300);
    expect(await both).toEqual(['v', 'v']);
    expect(calls).toHaveLength(1);
    // Done 300 ms after it started: kept for 6 s from then.
    await jest.advanceTimersByTimeAsync(5_900);
    await shared.get();
    expect(calls).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    const again = shared.get();
    expect(calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(300);
    await again;
  });

  it('keeps a fast read for the minimum, and reads again when told the value is stale', async () => {
    const { read, calls } = timedRead('v', () => 5);
    const shared = new SharedRead(read, 1000, 20);
    const first = shared.get();
    await jest.advanceTimersByTimeAsync(5);
    await first;
    await jest.advanceTimersByTimeAsync(900);
    await shared.get();
    expect(calls).toHaveLength(1);
    shared.invalidate();
    const fresh = shared.get();
    expect(calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(5);
    await fresh;
  });

  it('does not keep a failed read: its callers get the error and the next call reads again', async () => {
    const { read, calls, failNext } = timedRead('v', () => 50);
    const shared = new SharedRead(read, 1000, 20);
    failNext();
    const failed = expect(shared.get()).rejects.toThrow('database busy');
    await jest.advanceTimersByTimeAsync(50);
    await failed;
    const next = shared.get();
    expect(calls).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(50);
    await expect(next).resolves.toBe('v');
  });
});

describe('DashboardApi reads', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('serves open tabs from one count and one metrics read, and counts again after an action', async () => {
    const queues = timedRead([], () => 100);
    const metrics = timedRead({ generatedAt: new Date(), windowMinutes: 60, queues: {}, sampled: false }, () => 300);
    const admin = { listQueues: queues.read, getMetrics: metrics.read, pause: async () => undefined } as unknown as QueueAdmin;
    const api = new DashboardApi(admin, {} as QueueProducer, resolveDashboardOptions({}));
    const tabs = Promise.all([api.overview(), api.overview(), api.overview()]);
    await jest.advanceTimersByTimeAsync(300);
    await tabs;
    expect([queues.calls.length, metrics.calls.length]).toEqual([1, 1]);
    // The next polls of the tabs, 2 s later: the counts (100 ms, kept 2 s) are read again, the metrics (kept 6 s) are not.
    await jest.advanceTimersByTimeAsync(2_000);
    const polls = Promise.all([api.overview(), api.overview()]);
    await jest.advanceTimersByTimeAsync(100);
    await polls;
    expect([queues.calls.length, metrics.calls.length]).toEqual([2, 1]);
    // An action: the next look counts again at once.
    await api.act('pause', 'mail', {});
    const after = api.overview();
    await jest.advanceTimersByTimeAsync(100);
    await after;
    expect([queues.calls.length, metrics.calls.length]).toEqual([3, 1]);
  });
});
