import { Injectable } from '@nestjs/common';
import { QueueRuntime } from '../runtime/queue-runtime';

/** Thresholds of `QueueHealthIndicator.isHealthy()`. */
export interface QueueHealthOptions {
  /** The poller is down when its last successful round is older than this (ms). Default: 3 poll intervals, at least 5 s. */
  maxPollerSilence?: number;
  /** A queue is down when its oldest due pending job has waited longer than this (ms). Default 60000. */
  maxPendingAge?: number;
  /** Queues to check. Default: those with a processor in this application, else every queue with due jobs. */
  queues?: string[];
}

/** The shape @nestjs/terminus expects from an indicator (structurally its `HealthIndicatorResult`). */
export type QueueHealthResult = Record<string, { status: 'up' | 'down'; [detail: string]: unknown }>;

/**
 * A health indicator for @nestjs/terminus: database reachable, shared poller alive, and the oldest due
 * pending job of each queue within a bound. It returns terminus's result shape without importing terminus,
 * so the library does not need the package; use it as `() => queueHealth.isHealthy('queue')` in
 * `HealthCheckService.check([...])`.
 */
@Injectable()
export class QueueHealthIndicator {
  constructor(private readonly runtime: QueueRuntime) {}

  /** Checks the queue; never throws, reports `down` with the reason instead. */
  async isHealthy(key = 'queue', options: QueueHealthOptions = {}): Promise<QueueHealthResult> {
    const now = Date.now();
    const { pollInterval, processing } = this.runtime.options;
    const maxPollerSilence = options.maxPollerSilence ?? Math.max(3 * pollInterval, 5000);
    const maxPendingAge = options.maxPendingAge ?? 60_000;
    const runtime = this.runtime.processing;
    let oldest;
    let unprocessed;
    try {
      const storage = await this.runtime.storage();
      // A deleted, replaced or corrupted file may still answer queries (the process has the old file open).
      const fault = storage.fault;
      if (fault) return { [key]: { status: 'down', database: 'down', error: fault.message } };
      [oldest, unprocessed] = await Promise.all([storage.oldestDuePending(now), storage.unprocessedQueues(now, now)]);
    } catch (error) {
      return { [key]: { status: 'down', database: 'down', error: error instanceof Error ? error.message : String(error) } };
    }
    const lastRound = runtime?.lastPollerRoundAt ?? null;
    // Before its first round, the poller has been silent since it started, not forever.
    const heardFrom = lastRound ?? runtime?.startedAt ?? null;
    const pollerUp = !runtime || (heardFrom !== null && now - heardFrom <= maxPollerSilence);
    const poller = !processing || !runtime ? 'not running in this process' : pollerUp ? 'up' : 'down';
    // Queues with due jobs that no process has a processor for are checked too: their jobs wait for ever.
    // This process's own queues count from its start, before its first announcement lands.
    const local = new Set(runtime ? this.runtime.processors().map((p) => p.queue) : []);
    const unprocessedNames = unprocessed.map((row) => row.queue).filter((queue) => !local.has(queue));
    const checked = new Set(
      options.queues ??
        (this.runtime.processors().length > 0
          ? [...this.runtime.processors().map((p) => p.queue), ...unprocessedNames]
          : oldest.map((row) => row.queue)),
    );
    // Own members whatever the name: `queues[queue] = ...` for a queue named __proto__ would set the object's prototype.
    const queues: Record<string, { oldestPendingAgeMs: number; processed: boolean; status: 'up' | 'down' }> = Object.fromEntries(
      [...checked].map((queue) => {
        const age = Math.max(0, now - (oldest.find((row) => row.queue === queue)?.runAt ?? now));
        return [
          queue,
          { oldestPendingAgeMs: age, processed: !unprocessedNames.includes(queue), status: age <= maxPendingAge ? 'up' : 'down' },
        ];
      }),
    );
    const down = poller === 'down' || Object.values(queues).some((queue) => queue.status === 'down');
    return {
      [key]: {
        status: down ? 'down' : 'up',
        database: 'up',
        poller,
        pollerLastRoundAgoMs: lastRound === null ? null : now - lastRound,
        // Queues with due jobs and no processor in any process sharing the database.
        unprocessedQueues: unprocessedNames,
        queues,
      },
    };
  }
}
