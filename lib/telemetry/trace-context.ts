/**
 * The W3C trace context stored with a job (column `trace_context`): JSON of the `traceparent` and `tracestate` headers
 * (https://www.w3.org/TR/trace-context/), and `link` for a job of a bulk add, whose CONSUMER span links to the PRODUCER
 * span instead of being its child (one add of many jobs is not the parent of each job's processing).
 */
export interface StoredTraceContext {
  traceparent: string;
  tracestate?: string;
  link?: true;
}

/** The parts of an OpenTelemetry span context this codec reads and writes. */
export interface TraceIds {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The stored form of a span context. */
export function encodeTraceContext(ids: TraceIds, link: boolean): string {
  const stored: StoredTraceContext = {
    traceparent: `00-${ids.traceId}-${ids.spanId}-${(ids.traceFlags & 0xff).toString(16).padStart(2, '0')}`,
  };
  if (ids.traceState) stored.tracestate = ids.traceState;
  if (link) stored.link = true;
  return JSON.stringify(stored);
}

/**
 * The span context a stored value names, and whether it is a link; null for a value that is not one this library
 * writes (a job written by another tool, a column edited by hand): such a job is traced from a new root.
 */
export function decodeTraceContext(stored: string): { ids: TraceIds; link: boolean } | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null) return null;
  const { traceparent, tracestate, link } = parsed as Partial<Record<keyof StoredTraceContext, unknown>>;
  const match = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!match) return null;
  const ids: TraceIds = { traceId: match[1], spanId: match[2], traceFlags: Number.parseInt(match[3], 16) };
  if (typeof tracestate === 'string' && tracestate.length > 0) ids.traceState = tracestate;
  return { ids, link: link === true };
}
