/**
 * The real OpenTelemetry SDK for tests: a BasicTracerProvider with a SimpleSpanProcessor, the async-hooks context
 * manager (what the Nest OpenTelemetry SDK registers), and spans flattened to plain records that a child process can
 * print and a test compare.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, ReadableSpan, SimpleSpanProcessor, SpanExporter } from '@opentelemetry/sdk-trace-base';

/** A finished span, as plain data. */
export interface SpanRecord {
  name: string;
  /** SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind: number;
  traceId: string;
  spanId: string;
  /** The W3C `tracestate` the span carries, serialized (undefined when it carries none). */
  traceState: string | undefined;
  parentSpanId: string | undefined;
  links: { traceId: string; spanId: string }[];
  /** SpanStatusCode: 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
}

/** SpanKind values, without importing the enum where a record is compared. */
export const KIND = { internal: 0, producer: 3, consumer: 4 } as const;
/** SpanStatusCode values. */
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;

/** A span as a `SpanRecord`. */
export function toSpanRecord(span: ReadableSpan): SpanRecord {
  const { traceId, spanId, traceState } = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    traceId,
    spanId,
    traceState: traceState?.serialize(),
    parentSpanId: span.parentSpanContext?.spanId,
    links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
    status: { code: span.status.code, message: span.status.message },
    attributes: { ...span.attributes },
    events: span.events.map((event) => ({ name: event.name, attributes: { ...(event.attributes ?? {}) } })),
  };
}

/** An exporter that hands every finished span to `sink` as a record. */
export function recordingExporter(sink: (span: SpanRecord) => void): SpanExporter {
  return {
    export(spans, done) {
      spans.forEach((span) => sink(toSpanRecord(span)));
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
}

/** Registers the SDK globally; `uninstall` puts the API back to no-op (for the next file in the same worker). */
export function installTracing(sink: (span: SpanRecord) => void): { uninstall(): Promise<void> } {
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(recordingExporter(sink))] });
  const manager = new AsyncLocalStorageContextManager().enable();
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(manager);
  return {
    async uninstall() {
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}
