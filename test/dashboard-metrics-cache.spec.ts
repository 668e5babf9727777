/**
 * The dashboard's metrics read runs on the connection claims wait for, and a long busy history makes it slow (a full
 * sample is a few hundred ms on SQLite). Open tabs share one read; a read is kept at least a second and twenty times
 * as long as it took, so metrics never take more than about a twentieth of the database's time; a failed read is
 * not kept. On a fake clock, with a stand-in QueueAdmin.
 */
import { DashboardApi } from '../lib/dashboard/dashboard-api.service';
import { resolveDashboardOptions } from '../lib/dashboard/resolve-dashboard-options';
import type { QueueAdmin, QueueProducer } from '../lib';
import type { MetricsSnapshot } from '../lib/interfaces/metrics.interface';

function setUp(readMs: () => number) {
  const reads: number[] = [];
  let failNext = false;
  const admin = {
    listQueues: async () => [],
    getMetrics: jest.fn(
      ({ windowMinutes }: { windowMinutes: number }) =>
        new Promise<MetricsSnapshot>((resolve, reject) => {
          reads.push(Date.now());
          const fail = failNext;
          failNext = false;
          setTimeout(
            () =>
              fail ? reject(new Error('database busy')) : resolve({ generatedAt: new Date(), windowMinutes, queues: {}, sampled: false }),
            readMs(),
          );
        }),
    ),
  } as unknown as QueueAdmin;
  const api = new DashboardApi(admin, {} as QueueProducer, resolveDashboardOptions({}));
  return { api, reads, failNext: () => (failNext = true) };
}

describe('DashboardApi metrics reads', () => {
  beforeEach(() => jest.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => jest.useRealTimers());

  it('shares a read in flight, and keeps a slow one twenty times as long as it took', async () => {
    const { api, reads } = setUp(() => 300);
    const first = api.overview();
    const second = api.overview();
    await jest.advanceTimersByTimeAsync(300);
    await Promise.all([first, second]);
    expect(reads).toHaveLength(1);
    // Done 300 ms after it started: kept for 6 s from then.
    await jest.advanceTimersByTimeAsync(5_900);
    await api.overview();
    expect(reads).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    const third = api.overview();
    expect(reads).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(300);
    await third;
  });

  it('keeps a fast read one second', async () => {
    const { api, reads } = setUp(() => 5);
    const first = api.overview();
    await jest.advanceTimersByTimeAsync(5);
    await first;
    await jest.advanceTimersByTimeAsync(900);
    await api.overview();
    expect(reads).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(200);
    const next = api.overview();
    await jest.advanceTimersByTimeAsync(5);
    await next;
    expect(reads).toHaveLength(2);
  });

  it('does not keep a failed read: the caller gets its error and the next poll reads again', async () => {
    const { api, reads, failNext } = setUp(() => 50);
    failNext();
    const failing = api.overview();
    const failed = expect(failing).rejects.toThrow('database busy');
    await jest.advanceTimersByTimeAsync(50);
    await failed;
    const next = api.overview();
    expect(reads).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(50);
    await expect(next).resolves.toMatchObject({ queues: [] });
  });
});
