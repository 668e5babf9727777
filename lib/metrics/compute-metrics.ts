import { DurationPercentiles, MetricsSnapshot, QueueMetrics } from '../interfaces/metrics.interface';
import { FinishedJobTiming } from '../storage/queue-storage.interface';

const MINUTE = 60_000;

/** Builds the metrics snapshot of a window from the timings of the jobs finished in it. */
export function computeMetrics(timings: FinishedJobTiming[], now: number, windowMinutes: number, sampled: boolean): MetricsSnapshot {
  const start = now - windowMinutes * MINUTE;
  // Per minute too, so a chart can show how the percentiles moved (a sparkline per queue on the dashboard).
  const byQueue = new Map<
    string,
    { metrics: QueueMetrics; waits: number[]; runs: number[]; minuteWaits: number[][]; minuteRuns: number[][] }
  >();
  for (const timing of timings) {
    if (timing.status === 'cancelled' || timing.finishedAt < start) continue;
    let entry = byQueue.get(timing.queue);
    if (!entry) {
      entry = {
        metrics: {
          queue: timing.queue,
          completed: 0,
          failed: 0,
          completedPerMinute: new Array<number>(windowMinutes).fill(0),
          failedPerMinute: new Array<number>(windowMinutes).fill(0),
          waitTimePerMinute: [],
          runTimePerMinute: [],
          waitTime: null,
          runTime: null,
        },
        waits: [],
        runs: [],
        minuteWaits: Array.from({ length: windowMinutes }, () => []),
        minuteRuns: Array.from({ length: windowMinutes }, () => []),
      };
      byQueue.set(timing.queue, entry);
    }
    const minute = Math.min(windowMinutes - 1, Math.floor((timing.finishedAt - start) / MINUTE));
    if (timing.status === 'completed') {
      entry.metrics.completed++;
      entry.metrics.completedPerMinute[minute]++;
    } else {
      entry.metrics.failed++;
      entry.metrics.failedPerMinute[minute]++;
    }
    if (timing.waitMs !== null && timing.waitMs >= 0) {
      entry.waits.push(timing.waitMs);
      entry.minuteWaits[minute].push(timing.waitMs);
    }
    if (timing.runMs !== null && timing.runMs >= 0) {
      entry.runs.push(timing.runMs);
      entry.minuteRuns[minute].push(timing.runMs);
    }
  }
  // Own members whatever the name: `queues[queue] = ...` for a queue named __proto__ would set the object's prototype.
  const queues: Record<string, QueueMetrics> = Object.fromEntries(
    [...byQueue].map(([queue, { metrics, waits, runs, minuteWaits, minuteRuns }]) => [
      queue,
      {
        ...metrics,
        waitTimePerMinute: minuteWaits.map(percentiles),
        runTimePerMinute: minuteRuns.map(percentiles),
        waitTime: percentiles(waits),
        runTime: percentiles(runs),
      },
    ]),
  );
  return { generatedAt: new Date(now), windowMinutes, queues, sampled };
}

/** Nearest-rank percentiles; null for an empty sample. */
export function percentiles(values: number[]): DurationPercentiles | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
  return { count: sorted.length, p50: rank(50), p90: rank(90), p95: rank(95), p99: rank(99), max: sorted[sorted.length - 1] };
}
