import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { QueueInfo } from '../interfaces/queue-info.interface';
import { formatPrometheus } from '../metrics/prometheus-exposition';
import { InspectionStorage } from '../storage/queue-storage.interface';
import { describeValue } from '../utils/validation.util';

/**
 * `QueueAdmin.exportPrometheusMetrics`: the queues as `listQueues()` shows them and the jobs finished in the last
 * `windowMinutes` (at most `sample` of them, the newest), in Prometheus' text format.
 */
export async function exportPrometheus(
  storage: Pick<InspectionStorage, 'finishedSince'>,
  listQueues: () => Promise<QueueInfo[]>,
  windowMinutes: number,
  sample: number,
): Promise<string> {
  if (!(Number.isSafeInteger(windowMinutes) && windowMinutes >= 1 && windowMinutes <= 1440)) {
    const reason = `must be an integer from 1 to 1440, got ${describeValue(windowMinutes)}`;
    throw new InvalidArgumentError('exportPrometheusMetrics', 'windowMinutes', reason);
  }
  const now = Date.now();
  const since = now - windowMinutes * 60_000;
  const [queues, timings] = await Promise.all([listQueues(), storage.finishedSince(since, sample)]);
  return formatPrometheus({
    counts: new Map(queues.map((queue) => [queue.name, queue.counts])),
    paused: new Set(queues.filter((queue) => queue.paused).map((queue) => queue.name)),
    timings: timings.filter((timing) => timing.finishedAt >= since),
    windowMinutes,
    sampled: timings.length === sample,
  });
}
