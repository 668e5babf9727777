import { QueueEvent } from '../interfaces/queue-event.interface';
import { StoredEvent } from '../storage/queue-storage.interface';

/** Largest payload stored per event; past it a completed event goes out without its result (`resultOmitted`). */
export const MAX_EVENT_PAYLOAD = 16 * 1024;

/** The fields of an event that are Dates, revived on the way back. */
const DATE_FIELDS = ['nextRunAt', 'runAt'] as const;

/** An event of this process as a row of the shared event log. */
export function encodeEvent(event: QueueEvent, origin: string): StoredEvent {
  const { type, queue, jobId, attempt, timestamp, ...rest } = event;
  delete (rest as { origin?: string }).origin;
  let payload = Object.keys(rest).length > 0 ? JSON.stringify(rest) : null;
  if (payload !== null && payload.length > MAX_EVENT_PAYLOAD && type === 'completed') {
    // A large result would bloat every reader's poll: they can read it with admin.getJob(jobId).
    payload = JSON.stringify({ ...rest, result: undefined, resultOmitted: true });
  }
  return { origin, queue, jobId, type, attempt, payload, createdAt: timestamp.getTime() };
}

/** A row of the shared event log as the event its process emitted, marked with its origin. */
export function decodeEvent(stored: StoredEvent): QueueEvent {
  const rest = (stored.payload === null ? {} : JSON.parse(stored.payload)) as Record<string, unknown>;
  for (const field of DATE_FIELDS) if (typeof rest[field] === 'string') rest[field] = new Date(rest[field]);
  return {
    ...rest,
    type: stored.type,
    queue: stored.queue,
    jobId: stored.jobId,
    attempt: stored.attempt,
    timestamp: new Date(stored.createdAt),
    origin: stored.origin,
  } as QueueEvent;
}
