/**
 * JobEventBus holds the events emitted while an add of this process is under way until that add has announced its
 * jobs, so a job this process adds and claims at once is seen `added` before `active` (on PostgreSQL the claim's
 * reply can be read before the insert's: admin-control.e2e saw `active, added, cancelled`).
 */
import { JobEventBus, UnstampedEvent } from '../lib/events/job-event-bus';
import { QueueEvent } from '../lib/interfaces/queue-event.interface';

const event = (type: 'added' | 'active' | 'completed', jobId: string): UnstampedEvent =>
  (type === 'added'
    ? { type, queue: 'q', jobId, attempt: 0, runAt: new Date(0) }
    : type === 'active'
      ? { type, queue: 'q', jobId, attempt: 1 }
      : { type, queue: 'q', jobId, attempt: 1, result: null }) as UnstampedEvent;

function listen(bus: JobEventBus): string[] {
  const seen: string[] = [];
  bus.events$.subscribe((e: QueueEvent) => seen.push(`${e.type} ${e.jobId}`));
  return seen;
}

describe('JobEventBus and adds under way', () => {
  it('holds an event emitted during an add until the add has announced its job', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    const endAdd = bus.beginAdd();
    bus.emit(event('active', '1'));
    bus.emit(event('completed', '1'));
    expect(seen).toEqual([]);
    bus.emit(event('added', '1'));
    endAdd();
    expect(seen).toEqual(['added 1', 'active 1', 'completed 1']);
  });

  it('a held event goes out no earlier than the added stamped after it: times never run backwards', () => {
    jest.useFakeTimers({ now: 1_000 });
    try {
      const bus = new JobEventBus();
      const seen: QueueEvent[] = [];
      bus.events$.subscribe((published) => seen.push(published));
      const done = bus.beginAdd();
      bus.emit(event('active', '1'));
      jest.setSystemTime(1_002);
      bus.emit(event('added', '1'));
      done();
      expect(seen.map((published) => [published.type, published.timestamp.getTime()])).toEqual([
        ['added', 1_002],
        ['active', 1_002],
      ]);
      jest.setSystemTime(1_005);
      bus.emit(event('completed', '1'));
      expect(seen.at(-1)!.timestamp.getTime()).toBe(1_005);
    } finally {
      jest.useRealTimers();
    }
  });

  it('holds only the events of jobs written in a transaction until they are announced; a rollback releases them', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    const release = bus.holdJobs(['1']);
    bus.emit(event('active', '1'));
    bus.emit(event('completed', '2'));
    // Another job's events never wait for a transaction.
    expect(seen).toEqual(['completed 2']);
    bus.emit(event('added', '1'));
    release();
    release();
    expect(seen).toEqual(['completed 2', 'added 1', 'active 1']);
    // Released (committed or rolled back): the job's events go out at once.
    bus.emit(event('completed', '1'));
    expect(seen.at(-1)).toBe('completed 1');
  });

  it('does not hold events when no add is under way, nor events emitted before an add began', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    bus.emit(event('completed', '7'));
    expect(seen).toEqual(['completed 7']);
    const endAdd = bus.beginAdd();
    bus.emit(event('added', '8'));
    expect(seen).toEqual(['completed 7', 'added 8']);
    endAdd();
  });

  it('waits only for the adds that began before the event: overlapping adds never hold it for good', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    const endFirst = bus.beginAdd();
    bus.emit(event('active', '1'));
    const endSecond = bus.beginAdd();
    bus.emit(event('active', '2'));
    endFirst();
    // The second add began after `active 1`: it does not hold it; `active 2` waits for it, and stays in order.
    expect(seen).toEqual(['active 1']);
    const endThird = bus.beginAdd();
    endSecond();
    expect(seen).toEqual(['active 1', 'active 2']);
    endThird();
  });

  it('keeps the order of held events behind a later add that ends first', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    const endFirst = bus.beginAdd();
    const endSecond = bus.beginAdd();
    bus.emit(event('active', '1'));
    endSecond();
    expect(seen).toEqual([]);
    endFirst();
    expect(seen).toEqual(['active 1']);
  });

  it('releases held events at a failed add (its end is called in finally) and at complete()', () => {
    const bus = new JobEventBus();
    const seen = listen(bus);
    const endAdd = bus.beginAdd();
    bus.emit(event('active', '3'));
    endAdd();
    endAdd(); // a second call changes nothing
    expect(seen).toEqual(['active 3']);
    bus.beginAdd();
    bus.emit(event('completed', '3'));
    bus.complete();
    expect(seen).toEqual(['active 3', 'completed 3']);
  });

  it('holds nothing and costs nothing when nobody listens', () => {
    const bus = new JobEventBus();
    const endAdd = bus.beginAdd();
    bus.emit(event('active', '1'));
    endAdd();
    const seen = listen(bus);
    bus.emit(event('active', '2'));
    expect(seen).toEqual(['active 2']);
  });
});
