import { StoredEventBatch } from '../../queue-storage.interface';
import { appendEvents, hasEventReaders, markEventReader, pruneEvents, readEvents } from '../sql/events.sql';
import { SqliteConnection } from '../sqlite-connection';
import { EventStorage } from '../../roles/event-storage.interface';
import { SqliteBackend } from './sqlite-backend';

/** `EventStorage` on SQLite: see the role's interface for each member. */
export class SqliteEventStorage implements EventStorage {
  private readonly db: SqliteConnection;

  constructor(backend: SqliteBackend) {
    this.db = backend.db;
  }

  appendEvents(batch: StoredEventBatch): Promise<void> {
    return appendEvents(this.db.background, batch);
  }

  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
    return readEvents(this.db.background, afterId, limit, origin);
  }

  markEventReader(origin: string, now: number): Promise<void> {
    return markEventReader(this.db.background, origin, now);
  }

  hasEventReaders(since: number): Promise<boolean> {
    return hasEventReaders(this.db.background, since);
  }

  pruneEvents(before: number): Promise<number> {
    return pruneEvents(this.db.background, before);
  }
}
