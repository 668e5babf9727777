import { QueueEvent } from '../interfaces/queue-event.interface';

/** Largest payload stored per event; past it a completed event goes out without its result (`resultOmitted`). */
export const MAX_EVENT_PAYLOAD = 16 * 1024;

/** The fields of an event that are Dates (stored as epoch ms), revived on the way back. */
const DATE_FIELDS = ['nextRunAt', 'runAt'] as const;

/** Fields every event has, written in the element's fixed slots; `origin` is the reader's to set. */
const HEAD_FIELDS = new Set(['type', 'queue', 'jobId', 'attempt', 'timestamp', 'origin']);

/** Our job ids are digits (both backends): written as they are, anything else through JSON. */
const PLAIN_ID = /^\d{1,20}$/;

/** The first stored format: a JSON array of `[type, queue, jobId, attempt, timestamp ms, other fields | null]`. */
type EncodedEventV1 = [string, string, string, number, number, Record<string, unknown> | null];

/**
 * The stored format: one object per batch whose repeated parts are written once. `k` and `q` list the batch's event
 * types and queues; each element of `e` is `[type index, queue index, jobId, attempt, ms after t, other fields?]`.
 * About half the bytes of the first format (which repeated type, queue and a 13-digit time in every event), and
 * the bytes are what the database writes beside the jobs while someone listens.
 */
interface EncodedBatchV2 {
  v: 2;
  t: number;
  k: string[];
  q: string[];
  e: ([number, number, string, number, number] | [number, number, string, number, number, Record<string, unknown>])[];
}

/** The other fields of an event as JSON, or '' when it has none. Dates go as epoch ms (their ISO text was slow). */
function payloadOf(event: QueueEvent): string {
  const fields = event as unknown as Record<string, unknown>;
  let rest: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (HEAD_FIELDS.has(key) || value === undefined) continue;
    (rest ??= {})[key] = value instanceof Date ? value.getTime() : value;
  }
  if (rest === undefined) return '';
  const payload = JSON.stringify(rest);
  if (payload.length > MAX_EVENT_PAYLOAD && event.type === 'completed') {
    // A large result would bloat every reader's poll: they can read it with admin.getJob(jobId).
    return JSON.stringify({ ...rest, result: undefined, resultOmitted: true });
  }
  return payload;
}

/**
 * Events of this process as one stored batch (JSON text). Built by hand from the events' parts: while someone
 * listens, every event of every job passes here, so this is on the hot path (a generic `JSON.stringify` of each
 * event cost about twice as much, and wrote twice the bytes). Each event's own fields are stringified once, so a
 * large completed result is caught without a second pass.
 */
export function encodeEvents(events: QueueEvent[]): string {
  const base = events.length > 0 ? events[0].timestamp.getTime() : 0;
  const types = new Map<string, number>();
  const queues = new Map<string, number>();
  const parts: string[] = [];
  for (const event of events) {
    let type = types.get(event.type);
    if (type === undefined) types.set(event.type, (type = types.size));
    let queue = queues.get(event.queue);
    if (queue === undefined) queues.set(event.queue, (queue = queues.size));
    const id = PLAIN_ID.test(event.jobId) ? `"${event.jobId}"` : JSON.stringify(event.jobId);
    const payload = payloadOf(event);
    const head = `[${type},${queue},${id},${event.attempt},${event.timestamp.getTime() - base}`;
    parts.push(payload === '' ? `${head}]` : `${head},${payload}]`);
  }
  return `{"v":2,"t":${base},"k":${JSON.stringify([...types.keys()])},"q":${JSON.stringify([...queues.keys()])},"e":[${parts.join(',')}]}`;
}

/** A stored batch's events (either format), each marked with the process that published it. */
export function decodeEvents(events: string, origin: string): QueueEvent[] {
  const parsed = JSON.parse(events) as EncodedEventV1[] | EncodedBatchV2;
  if (Array.isArray(parsed)) {
    return parsed.map(([type, queue, jobId, attempt, timestamp, payload]) =>
      toEvent(type, queue, jobId, attempt, timestamp, payload, origin),
    );
  }
  const { t, k, q, e } = parsed;
  return e.map(([type, queue, jobId, attempt, offset, payload]) => toEvent(k[type], q[queue], jobId, attempt, t + offset, payload, origin));
}

function toEvent(
  type: string,
  queue: string,
  jobId: string,
  attempt: number,
  timestamp: number,
  payload: Record<string, unknown> | null | undefined,
  origin: string,
): QueueEvent {
  const rest = payload ?? {};
  // Epoch ms, or ISO text as the first format wrote them.
  for (const field of DATE_FIELDS) {
    const value = rest[field];
    if (typeof value === 'string' || typeof value === 'number') rest[field] = new Date(value);
  }
  return { ...rest, type, queue, jobId, attempt, timestamp: new Date(timestamp), origin } as QueueEvent;
}
