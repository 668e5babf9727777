import type { Observable } from 'rxjs';
import type { StoredEventBatch } from '../storage-records';

/** The shared log of cluster events and its readers' heartbeats (`ClusterEventPublisher`, `ClusterEventFeed`). */
export interface EventStorage {
  /**
   * Where the database can tell (PostgreSQL NOTIFY): the origin of a process that just published cluster events, or
   * null for "maybe anyone". Absent on SQLite.
   */
  readonly eventHints$?: Observable<string | null>;
  /** Appends one batch of events to the shared event log (one row, one statement). */
  appendEvents(batch: StoredEventBatch): Promise<void>;
  /**
   * Batches of other origins than `origin` after `afterId` (oldest first, at most `limit`);
   * `afterId` null reads none and returns the cursor to start from.
   */
  readEvents(afterId: string | null, limit: number, origin: string): Promise<{ batches: StoredEventBatch[]; cursor: string }>;
  /** Deletes batches created before `before`, and reader heartbeats older than that; returns how many batches. */
  pruneEvents(before: number): Promise<number>;
  /** Records that `origin` reads cluster events (a heartbeat). */
  markEventReader(origin: string, now: number): Promise<void>;
  /** Whether any process left a reader heartbeat at or after `since`. */
  hasEventReaders(since: number): Promise<boolean>;
}
