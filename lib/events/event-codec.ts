import { QueueEvent } from '../interfaces/queue-event.interface';

/** Largest payload stored per event; past it a completed event goes out without its result (`resultOmitted`). */
export const MAX_EVENT_PAYLOAD = 16 * 1024;

/** The fields of an event that are Dates, revived on the way back. */
const DATE_FIELDS = ['nextRunAt', 'runAt'] as const;

/** One event as stored: `[type, queue, jobId, attempt, timestamp ms, other fields | null]`. */
type EncodedEvent = [string, string, string, number, number, Record<string, unknown> | null];

/**
 * An event of this process as one element of a stored batch, already JSON (the batch is `[` + elements + `]`):
 * each event is stringified once, and a large completed result is caught without a second pass.
 */
export function encodeEvent(event: QueueEvent): string {
  const { type, queue, jobId, attempt, timestamp, ...rest } = event;
  delete (rest as { origin?: string }).origin;
  let payload = Object.keys(rest).length > 0 ? JSON.stringify(rest) : 'null';
  if (payload.length > MAX_EVENT_PAYLOAD && type === 'completed') {
    // A large result would bloat every reader's poll: they can read it with admin.getJob(jobId).
    payload = JSON.stringify({ ...rest, result: undefined, resultOmitted: true });
  }
  const head = JSON.stringify([type, queue, jobId, attempt, timestamp.getTime()]);
  return `${head.slice(0, -1)},${payload}]`;
}

/** A stored batch's events, each marked with the process that published it. */
export function decodeEvents(events: string, origin: string): QueueEvent[] {
  return (JSON.parse(events) as EncodedEvent[]).map(([type, queue, jobId, attempt, timestamp, payload]) => {
    const rest = payload ?? {};
    for (const field of DATE_FIELDS) if (typeof rest[field] === 'string') rest[field] = new Date(rest[field]);
    return { ...rest, type, queue, jobId, attempt, timestamp: new Date(timestamp), origin } as QueueEvent;
  });
}
