import { existsSync } from 'node:fs';
import { InvalidArgumentError } from '../errors/invalid-argument.error';
import { ENDED_PROCESS_KEPT_MS } from '../housekeeping/processor-announcer';
import { MetricsSnapshot } from '../interfaces/metrics.interface';
import { ProcessesInfo } from '../interfaces/process-info.interface';
import { QueueInfo } from '../interfaces/queue-info.interface';
import { computeMetrics } from '../metrics/compute-metrics';
import { assertAdminOptions } from '../utils/assert-options.util';
import { METRICS_OPTION_KEYS } from '../utils/option-keys.util';
import { describeValue } from '../utils/validation.util';
import { AdminContext } from './admin-context';
import { exportPrometheus } from './export-prometheus';
import { DeadLetterQueueInfo } from './redrive';
import { toProcesses, toWorkers } from './to-processes';

/** Most finished jobs a metrics snapshot reads; beyond that it uses the newest and says so. */
const METRICS_SAMPLE = 100_000;

/**
 * `QueueAdmin`'s view of the whole installation: processes, metrics, dead-letter queues, backups; each method is
 * documented on `QueueAdmin`.
 */
export class Operations {
  constructor(
    private readonly context: AdminContext,
    private readonly listQueues: () => Promise<QueueInfo[]>,
  ) {}

  /** See `QueueAdmin.listProcesses`. */
  async listProcesses(): Promise<ProcessesInfo> {
    const { runtime } = this.context;
    const storage = await this.context.storage();
    const now = Date.now();
    const [rows, activity, announced] = await Promise.all([
      storage.processRows(now - ENDED_PROCESS_KEPT_MS),
      storage.runningByWorker(),
      storage.processorAnnouncements(now),
    ]);
    return {
      self: {
        workerId: runtime.options.workerId,
        processors: runtime.processors().map((p) => ({ queue: p.queue, concurrency: p.settings.concurrency })),
      },
      processes: toProcesses(rows, activity, now),
      workers: toWorkers(activity),
      announcements: announced.map((row) => ({ queue: row.queue, until: new Date(row.until) })),
    };
  }

  /** See `QueueAdmin.listDeadLetterQueues`. */
  async listDeadLetterQueues(): Promise<DeadLetterQueueInfo[]> {
    return (await this.context.storage()).deadLetterQueues();
  }

  /** See `QueueAdmin.getMetrics`. */
  async getMetrics(options: { windowMinutes?: number }): Promise<MetricsSnapshot> {
    assertAdminOptions('getMetrics', options, METRICS_OPTION_KEYS);
    const windowMinutes = options.windowMinutes ?? 15;
    if (!(Number.isSafeInteger(windowMinutes) && windowMinutes >= 1 && windowMinutes <= 1440)) {
      throw new InvalidArgumentError(
        'getMetrics',
        'windowMinutes',
        `must be an integer from 1 to 1440, got ${describeValue(windowMinutes)}`,
      );
    }
    const now = Date.now();
    const timings = await (await this.context.storage()).finishedSince(now - windowMinutes * 60_000, METRICS_SAMPLE);
    return computeMetrics(timings, now, windowMinutes, timings.length === METRICS_SAMPLE);
  }

  /** See `QueueAdmin.exportPrometheusMetrics`. */
  async exportPrometheusMetrics(options: { windowMinutes?: number }): Promise<string> {
    assertAdminOptions('exportPrometheusMetrics', options, METRICS_OPTION_KEYS);
    return exportPrometheus(await this.context.storage(), this.listQueues, options.windowMinutes ?? 15, METRICS_SAMPLE);
  }

  /** See `QueueAdmin.backup`. */
  async backup(destination: string): Promise<void> {
    if (typeof destination !== 'string' || destination.length === 0 || destination === ':memory:' || destination.includes('\0')) {
      throw new InvalidArgumentError('backup', 'destination', `must be the path of a new file, got ${describeValue(destination)}`);
    }
    if (existsSync(destination)) {
      throw new InvalidArgumentError('backup', 'destination', `already exists (${destination}): a backup never overwrites a file`);
    }
    await (await this.context.storage()).backup(destination);
  }
}
