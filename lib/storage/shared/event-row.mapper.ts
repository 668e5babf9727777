import { StoredEventBatch } from '../storage-records';
import { StorageRow } from './job-row.mapper';

/** A stored batch row, on either backend. */
export function toStoredEventBatch(row: StorageRow): StoredEventBatch {
  return { id: String(row.id), origin: String(row.origin), createdAt: Number(row.created_at), events: String(row.events) };
}
