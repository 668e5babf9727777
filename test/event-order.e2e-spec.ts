/**
 * An add's `added` events come before the events this process emits while the add is under way (JobEventBus's
 * holding, wired into every add of QueueProducer): its job may be claimed and started by this process before the add
 * returns (seen on PostgreSQL, whose claim reply can be read before the insert's), and `active` must not come first.
 * The event emitted "meanwhile" is emitted on the bus right after the add starts, before it can have written.
 */
import { QueueEvent, QueueEvents, QueueProducer } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { MIGRATED, describeEachBackend, perTestApp } from './support/backends';

describeEachBackend('event order around adds', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('add, addBulk and addFlow announce their jobs before the events emitted while they were under way', async () => {
    const app = await current.startApp({ module: { processing: false } });
    const producer = app.get(QueueProducer);
    const bus = app.get(QueueRuntime).events;
    const seen: string[] = [];
    const subscription = app.get(QueueEvents).events$.subscribe((event: QueueEvent) => seen.push(`${event.type} ${event.jobId}`));
    const meanwhile = (jobId: string) => bus.emit({ type: 'active', queue: 'other', jobId, attempt: 1 });
    try {
      const adding = producer.add('order', 1);
      meanwhile('a');
      const one = await adding;
      const bulkAdding = producer.addBulk('order', [{ data: 2 }, { data: 3 }]);
      meanwhile('b');
      const bulk = await bulkAdding;
      const flowAdding = producer.addFlow({ queue: 'order', data: 4, children: [{ queue: 'order', data: 5 }] });
      meanwhile('c');
      const root = await flowAdding;
      expect(seen.filter((line) => !line.startsWith('added'))).toEqual(['active a', 'active b', 'active c']);
      // Each "meanwhile" event follows every `added` of the add it overlapped.
      expect(seen.indexOf('active a')).toBeGreaterThan(seen.indexOf(`added ${one.id}`));
      expect(seen.indexOf('active b')).toBeGreaterThan(Math.max(...bulk.map((job) => seen.indexOf(`added ${job.id}`))));
      expect(seen.indexOf('active c')).toBeGreaterThan(seen.indexOf(`added ${root.id}`));
      expect(seen.filter((line) => line.startsWith('added')).length).toBe(5);
      expect(seen.indexOf('active c')).toBe(seen.length - 1);
    } finally {
      subscription.unsubscribe();
    }
  });
});
