import { Observable } from 'rxjs';
import { StoredEventBatch } from '../../queue-storage.interface';
import { PostgresConnection } from '../postgres-connection';
import { appendEvents, hasEventReaders, markEventReader, pruneEvents, readEvents } from '../sql/events.sql';
import { PostgresContext } from '../sql/postgres-sql-fragments';
import { EventStorage } from '../../roles/event-storage.interface';
import { PostgresBackend } from './postgres-backend';

/** `EventStorage` on PostgreSQL: see the role's interface for each member. */
export class PostgresEventStorage implements EventStorage {
  private readonly connection: PostgresConnection;
  private readonly db: PostgresContext;

  constructor(backend: PostgresBackend) {
    this.connection = backend.connection;
    this.db = backend.db;
  }

  get eventHints$(): Observable<string | null> {
    return this.connection.eventHints$;
  }

  appendEvents(batch: StoredEventBatch): Promise<void> {
    return appendEvents(this.db, batch);
  }

  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }> {
    return readEvents(this.db, afterId, limit, origin);
  }

  markEventReader(origin: string, now: number): Promise<void> {
    return markEventReader(this.db, origin, now);
  }

  hasEventReaders(since: number): Promise<boolean> {
    return hasEventReaders(this.db, since);
  }

  pruneEvents(before: number): Promise<number> {
    return pruneEvents(this.db, before);
  }
}
