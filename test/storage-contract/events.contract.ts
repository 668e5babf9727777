/** The storage contract of `EventStorage` (the shared log of cluster events), on every backend. */
import { firstValueFrom, take, timeout } from 'rxjs';
import { describeEachBackend } from '../support/backends';
import { contractStorage } from '../support/storage-contract';

describeEachBackend('Storage contract: cluster events', (backend) => {
  const s = contractStorage(backend);

  it('readEvents: null starts at the end; later batches of other origins come oldest first, own ones skipped, paged', async () => {
    const now = Date.now();
    await s.storage.appendEvents({ origin: 'a', createdAt: now, events: '["before"]' });
    const start = await s.storage.readEvents(null, 10, 'me');
    expect(start.batches).toEqual([]);
    await s.storage.appendEvents({ origin: 'a', createdAt: now + 1, events: '["one"]' });
    await s.storage.appendEvents({ origin: 'me', createdAt: now + 2, events: '["mine"]' });
    await s.storage.appendEvents({ origin: 'b', createdAt: now + 3, events: '["two"]' });
    const page = await s.storage.readEvents(start.cursor, 1, 'me');
    expect(page.batches).toEqual([{ id: expect.any(String), origin: 'a', createdAt: now + 1, events: '["one"]' }]);
    const rest = await s.storage.readEvents(page.cursor, 10, 'me');
    expect(rest.batches.map((batch) => batch.events)).toEqual(['["two"]']);
    expect((await s.storage.readEvents(rest.cursor, 10, 'me')).batches).toEqual([]);
  });

  it('pruneEvents deletes batches created before a time and returns how many', async () => {
    const now = Date.now();
    const start = await s.storage.readEvents(null, 10, 'me');
    await s.storage.appendEvents({ origin: 'a', createdAt: now - 10_000, events: '["old"]' });
    await s.storage.appendEvents({ origin: 'a', createdAt: now, events: '["new"]' });
    expect(await s.storage.pruneEvents(now - 5_000)).toBe(1);
    expect((await s.storage.readEvents(start.cursor, 10, 'me')).batches.map((batch) => batch.events)).toEqual(['["new"]']);
  });

  it('markEventReader leaves a heartbeat that hasEventReaders sees until it is older than the bound; pruneEvents drops it', async () => {
    const now = Date.now();
    expect(await s.storage.hasEventReaders(now - 1_000)).toBe(false);
    await s.storage.markEventReader('reader', now);
    expect(await s.storage.hasEventReaders(now - 1_000)).toBe(true);
    expect(await s.storage.hasEventReaders(now + 1)).toBe(false);
    await s.storage.pruneEvents(now + 1);
    expect(await s.storage.hasEventReaders(now - 1_000)).toBe(false);
  });

  it('eventHints$: PostgreSQL names the publisher of an appended batch; SQLite has none', async () => {
    if (backend.kind === 'sqlite') {
      expect(s.storage.eventHints$).toBeUndefined();
      return;
    }
    const hint = firstValueFrom(s.storage.eventHints$!.pipe(take(1), timeout(10_000)));
    await s.storage.appendEvents({ origin: 'publisher-1', createdAt: Date.now(), events: '[]' });
    expect(await hint).toBe('publisher-1');
  });
});
