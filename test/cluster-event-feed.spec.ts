/**
 * The cluster event feed reads a long backlog batch after batch. better-sqlite3 answers each read without a turn of
 * the event loop, so the feed itself must leave one between full reads, or catching up would hold up the process.
 */
import { Logger } from '@nestjs/common';
import { firstValueFrom, take, toArray } from 'rxjs';
import { ClusterEventFeed } from '../lib/events/cluster-event-feed';
import { encodeEvents } from '../lib/events/event-codec';
import { QueueStorage, StoredEventBatch } from '../lib/storage/queue-storage.interface';

const READS_FULL = 3;

/** A storage whose first reads each return a full page of one-event batches, answered at once (as better-sqlite3 does). */
function backlogStorage(order: string[]) {
  let reads = 0;
  const batch = (n: number): StoredEventBatch => ({
    id: String(n),
    origin: 'other',
    createdAt: 0,
    events: encodeEvents([{ type: 'completed', queue: 'q', jobId: String(n), attempt: 1, timestamp: new Date(0), result: null }]),
  });
  return {
    markEventReader: async () => undefined,
    readEvents: async (_after: string | null, limit: number) => {
      reads++;
      order.push('read');
      setImmediate(() => order.push('turn'));
      const batches = reads <= READS_FULL ? Array.from({ length: limit }, (_, i) => batch(reads * limit + i)) : [];
      return { batches, cursor: String(reads) };
    },
  } as unknown as QueueStorage;
}

describe('ClusterEventFeed (unit)', () => {
  it('leaves a turn of the event loop between the full reads of a backlog', async () => {
    const order: string[] = [];
    const storage = backlogStorage(order);
    // A short poll: the feed's own timers (its next poll, its readiness mark) end soon after the test.
    const feed = new ClusterEventFeed(async () => storage, 'me', 10, new Logger('test'));
    const events = await firstValueFrom(feed.events$.pipe(take(200), toArray()));
    expect(events).toHaveLength(200);
    const reads = order.filter((entry) => entry === 'read').length;
    expect(reads).toBeGreaterThanOrEqual(2);
    // Every read but the last is followed by the turn it scheduled before the next read.
    for (let i = 0; i < order.length - 1; i++) {
      if (order[i] === 'read' && order[i + 1] === 'read') throw new Error(`no turn between reads: ${order.join(', ')}`);
    }
  });
});
