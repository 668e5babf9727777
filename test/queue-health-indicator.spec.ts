/**
 * `QueueHealthIndicator`'s defaults and its first moments, against a stub runtime with a fixed clock: the e2e spec
 * (health-metrics) passes its bounds explicitly and cannot place a poller's last round seconds in the past.
 */
import { QueueHealthIndicator } from '../lib/health/queue-health.indicator';
import { QueueRuntime } from '../lib/runtime/queue-runtime';

const NOW = 10_000_000;

/** A processing runtime polling every `pollInterval` ms, its last round and start as given, queue 'mail' its own. */
function indicatorOf({
  pollInterval,
  lastRound,
  startedAt = NOW - 60_000,
  unprocessed = [],
}: {
  pollInterval: number;
  lastRound: number | null;
  startedAt?: number | null;
  unprocessed?: string[];
}) {
  const storage = {
    fault: undefined,
    oldestDuePending: async () => [],
    unprocessedQueues: async () => unprocessed.map((queue) => ({ queue, runAt: NOW })),
  };
  const runtime = {
    options: { pollInterval, processing: true },
    processing: { lastPollerRoundAt: lastRound, startedAt },
    storage: async () => storage,
    processors: () => [{ queue: 'mail' }],
  } as unknown as QueueRuntime;
  return new QueueHealthIndicator(runtime);
}

describe('QueueHealthIndicator', () => {
  beforeEach(() => jest.useFakeTimers({ now: NOW }));
  afterEach(() => jest.useRealTimers());

  it('allows a poller at least 5 s of silence by default, whatever its poll interval', async () => {
    // 3 poll intervals would be 3 s: the default bound is the larger of the two.
    const quiet = await indicatorOf({ pollInterval: 1000, lastRound: NOW - 4000 }).isHealthy();
    expect(quiet.queue).toMatchObject({ status: 'up', poller: 'up', pollerLastRoundAgoMs: 4000 });
    const silent = await indicatorOf({ pollInterval: 1000, lastRound: NOW - 5001 }).isHealthy();
    expect(silent.queue).toMatchObject({ status: 'down', poller: 'down' });
    // A slow poll interval: three of them.
    const slow = await indicatorOf({ pollInterval: 4000, lastRound: NOW - 11_000 }).isHealthy();
    expect(slow.queue).toMatchObject({ status: 'up', poller: 'up' });
  });

  it('counts a poller that has not finished its first round as silent since it started, not as down', async () => {
    const booting = await indicatorOf({ pollInterval: 1000, lastRound: null, startedAt: NOW - 100 }).isHealthy();
    expect(booting.queue).toMatchObject({ status: 'up', poller: 'up', pollerLastRoundAgoMs: null });
    const stuck = await indicatorOf({ pollInterval: 1000, lastRound: null, startedAt: NOW - 6000 }).isHealthy();
    expect(stuck.queue).toMatchObject({ status: 'down', poller: 'down' });
  });

  it("does not list this process's own queues as unprocessed before its first announcement lands", async () => {
    const result = await indicatorOf({ pollInterval: 1000, lastRound: NOW, unprocessed: ['mail', 'orphan'] }).isHealthy();
    expect(result.queue).toMatchObject({
      unprocessedQueues: ['orphan'],
      queues: { mail: { processed: true }, orphan: { processed: false } },
    });
  });
});
