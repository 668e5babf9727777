import { computeMetrics } from '../lib/metrics/compute-metrics';
import { FinishedJobTiming } from '../lib/storage/queue-storage.interface';

const MINUTE = 60_000;

describe('computeMetrics per minute (the dashboard charts)', () => {
  it('gives each minute of the window its own wait and run percentiles, null for a quiet minute', () => {
    const now = 10 * MINUTE;
    const at = (minute: number) => now - 3 * MINUTE + minute * MINUTE + 1;
    const timings: FinishedJobTiming[] = [
      { queue: 'q', status: 'completed', waitMs: 10, runMs: 100, finishedAt: at(0) },
      { queue: 'q', status: 'completed', waitMs: 30, runMs: 300, finishedAt: at(0) },
      { queue: 'q', status: 'failed', waitMs: 50, runMs: 500, finishedAt: at(2) },
      // Cancelled jobs are not activity; a negative wait (clock skew) is left out of the sample.
      { queue: 'q', status: 'cancelled', waitMs: 1, runMs: 1, finishedAt: at(2) },
      { queue: 'q', status: 'completed', waitMs: -5, runMs: 7, finishedAt: at(2) },
    ];
    const { queues } = computeMetrics(timings, now, 3, false);
    const q = queues.q;
    expect(q.completedPerMinute).toEqual([2, 0, 1]);
    expect(q.failedPerMinute).toEqual([0, 0, 1]);
    expect(q.waitTimePerMinute.map((p) => p && [p.count, p.p50, p.max])).toEqual([[2, 10, 30], null, [1, 50, 50]]);
    expect(q.runTimePerMinute.map((p) => p && [p.count, p.p50, p.max])).toEqual([[2, 100, 300], null, [2, 7, 500]]);
    expect(q.waitTime).toMatchObject({ count: 3, max: 50 });
  });

  it("counts a job finished at the window's very end in its last minute, and one at its very start in its first", () => {
    const now = 10 * MINUTE;
    const timings: FinishedJobTiming[] = [
      { queue: 'q', status: 'completed', waitMs: 1, runMs: 2, finishedAt: now },
      { queue: 'q', status: 'failed', waitMs: 3, runMs: 4, finishedAt: now },
      { queue: 'q', status: 'completed', waitMs: 5, runMs: 6, finishedAt: now - 3 * MINUTE },
    ];
    const q = computeMetrics(timings, now, 3, false).queues.q;
    expect(q.completedPerMinute).toEqual([1, 0, 1]);
    expect(q.failedPerMinute).toEqual([0, 0, 1]);
    expect(q.waitTimePerMinute.map((p) => p && [p.count, p.max])).toEqual([[1, 5], null, [2, 3]]);
    expect(q.runTimePerMinute.map((p) => p && [p.count, p.max])).toEqual([[1, 6], null, [2, 4]]);
  });
});
