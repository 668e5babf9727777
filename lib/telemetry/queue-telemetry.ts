import type { Attributes, Context, Link, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { OpenTelemetryApiModule, loadOpenTelemetryApi } from './opentelemetry-api';
import { decodeTraceContext, encodeTraceContext } from './trace-context';

/** `messaging.system` of every span: this library. */
export const MESSAGING_SYSTEM = 'nestjs-sqlite-queue';
/** The tracer's name (the instrumentation scope). */
export const TRACER_NAME = 'nestjs-sqlite-queue';

/** Attribute names: OpenTelemetry's messaging conventions, and this library's own under its prefix. */
export const TRACE_ATTRIBUTES = {
  system: 'messaging.system',
  destination: 'messaging.destination.name',
  messageId: 'messaging.message.id',
  operationType: 'messaging.operation.type',
  operationName: 'messaging.operation.name',
  batchCount: 'messaging.batch.message_count',
  jobName: 'nestjs_sqlite_queue.job.name',
  attempt: 'nestjs_sqlite_queue.job.attempt',
  maxAttempts: 'nestjs_sqlite_queue.job.max_attempts',
  group: 'nestjs_sqlite_queue.job.group',
} as const;

/** The API's global tracer provider as read here: its proxy (`ProxyTracerProvider`) has `getDelegateTracer`. */
type DelegatingProvider = { getDelegateTracer?: (name: string) => Tracer | undefined };

/** The error of a failed attempt, as the worker records it. */
export interface TracedError {
  name: string;
  message: string;
  stack?: string;
}

/** The PRODUCER span of one add, bulk add or flow. */
export interface SendSpan {
  /** What each job of the add stores: the span's W3C context, or null when there is none to continue (no SDK). */
  readonly traceContext: string | null;
  /** The insert wrote these jobs (a bulk add's or a flow's first is the root / first job). Ends the span. */
  sent(ids: readonly string[]): void;
  /** The add threw: nothing was written. Ends the span. */
  failed(error: unknown): void;
}

/** The CONSUMER span of one attempt. */
export interface ProcessSpan {
  /** Runs the handler with this span active, so the handler's own spans are its children. */
  run<T>(work: () => T): T;
  /** The attempt completed. Ends the span (OK). */
  completed(): void;
  /** The attempt failed (`retryAt`: it runs again then; otherwise for good). Ends the span (ERROR, exception recorded). */
  failed(error: TracedError, retryAt?: number): void;
  /** The attempt ended without an outcome of its own (handed back, cancelled, rate limited): an event, then OK. */
  ended(event: string, attributes?: Record<string, string | number | boolean>): void;
}

/** What a CONSUMER span is started from: the job as claimed. */
export interface TracedJob {
  id: string;
  queue: string;
  name?: string | null;
  attempts: number;
  maxAttempts: number;
  traceContext?: string | null;
  group?: string | null;
}

/**
 * OpenTelemetry for the queue: a PRODUCER span per add (in the caller's active context) whose context every job of
 * the add stores, and a CONSUMER span per attempt (in whichever process runs it) that continues it. Built only when
 * `@opentelemetry/api` is installed and the module option `telemetry` is not false: otherwise there is no instance,
 * and the producer and the worker skip every call.
 */
export class QueueTelemetry {
  private readonly tracer: Tracer;
  /** The global tracer provider: the API's proxy, whose delegate is the SDK's provider once one registers. */
  private provider: DelegatingProvider;
  private inactiveChecks = 0;

  private constructor(private readonly api: OpenTelemetryApiModule) {
    this.provider = api.trace.getTracerProvider() as DelegatingProvider;
    // A ProxyTracer: it follows a tracer provider the application registers later (the Nest SDK starts before or after).
    this.tracer = api.trace.getTracer(TRACER_NAME);
  }

  /** The telemetry of a module whose option `telemetry` is `enabled`: undefined when off or the API is absent. */
  static create(enabled: boolean): QueueTelemetry | undefined {
    if (!enabled) return undefined;
    const api = loadOpenTelemetryApi();
    return api ? new QueueTelemetry(api) : undefined;
  }

  /**
   * Whether a tracer provider (an SDK) is registered. Without one every span would be a non-recording no-op: the
   * producer and the worker then skip tracing altogether (no span objects, no contexts, nothing stored), so the API
   * installed without an SDK costs one check per add and per attempt. The global provider is the API's proxy, which
   * has a delegate tracer only once an SDK registered (asked each time: the SDK may start after the module).
   * Held rather than read each time: the global read checks the API version on every call.
   */
  get active(): boolean {
    const provider = this.provider;
    if (typeof provider.getDelegateTracer !== 'function' || provider.getDelegateTracer(TRACER_NAME) !== undefined) return true;
    // Reading the global provider again costs a version check (about 0.2 µs): once every 256 inactive checks is enough
    // to follow a provider registered through another copy of the API (the proxy held here then never gets a delegate).
    if ((++this.inactiveChecks & 0xff) === 0) this.provider = this.api.trace.getTracerProvider() as DelegatingProvider;
    return false;
  }

  /**
   * Starts the PRODUCER span `send <queue>` of an add of `count` jobs (`link`: a bulk add, whose jobs' CONSUMER spans
   * link to it), in the caller's active context.
   */
  send(queue: string, count: number, options: { link: boolean; jobName?: string | null }): SendSpan {
    const { api } = this;
    const attributes: Attributes = {
      [TRACE_ATTRIBUTES.system]: MESSAGING_SYSTEM,
      [TRACE_ATTRIBUTES.destination]: queue,
      [TRACE_ATTRIBUTES.operationType]: 'send',
      [TRACE_ATTRIBUTES.operationName]: 'send',
    };
    if (count > 1 || options.link) attributes[TRACE_ATTRIBUTES.batchCount] = count;
    if (options.jobName) attributes[TRACE_ATTRIBUTES.jobName] = options.jobName;
    const span = this.tracer.startSpan(`send ${queue}`, { kind: api.SpanKind.PRODUCER, attributes }, api.context.active());
    const spanContext = span.spanContext();
    const traceContext = api.isSpanContextValid(spanContext) ? encodeTraceContext(idsOf(spanContext), options.link) : null;
    return {
      traceContext,
      sent: (ids) => {
        if (ids.length > 0 && !options.link) span.setAttribute(TRACE_ATTRIBUTES.messageId, ids[0]);
        span.end();
      },
      failed: (error) => {
        span.recordException(asException(error));
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: asException(error).message });
        span.end();
      },
    };
  }

  /**
   * Starts the CONSUMER span `process <queue>` of one attempt: a child of the PRODUCER span the job stored, or linked
   * to it for a job of a bulk add, else a new root. Never in the context the claim happened to run in (another add's
   * request, in this process): the job's trace is the one it was added in.
   */
  process(job: TracedJob): ProcessSpan {
    const { api } = this;
    const attributes: Attributes = {
      [TRACE_ATTRIBUTES.system]: MESSAGING_SYSTEM,
      [TRACE_ATTRIBUTES.destination]: job.queue,
      [TRACE_ATTRIBUTES.messageId]: job.id,
      [TRACE_ATTRIBUTES.operationType]: 'process',
      [TRACE_ATTRIBUTES.operationName]: 'process',
      [TRACE_ATTRIBUTES.attempt]: job.attempts,
      [TRACE_ATTRIBUTES.maxAttempts]: job.maxAttempts,
    };
    if (job.name) attributes[TRACE_ATTRIBUTES.jobName] = job.name;
    if (job.group) attributes[TRACE_ATTRIBUTES.group] = job.group;
    let parent: Context = api.ROOT_CONTEXT;
    let links: Link[] | undefined;
    const remote = job.traceContext ? this.remoteContext(job.traceContext) : null;
    if (remote?.link) links = [{ context: remote.spanContext }];
    else if (remote) parent = api.trace.setSpanContext(api.ROOT_CONTEXT, remote.spanContext);
    const span = this.tracer.startSpan(`process ${job.queue}`, { kind: api.SpanKind.CONSUMER, attributes, links }, parent);
    const active = api.trace.setSpan(parent, span);
    return {
      run: (work) => api.context.with(active, work),
      completed: () => {
        span.setStatus({ code: api.SpanStatusCode.OK });
        span.end();
      },
      failed: (error, retryAt) => {
        span.recordException({ name: error.name, message: error.message, stack: error.stack });
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: `${error.name}: ${error.message}` });
        if (retryAt !== undefined)
          span.addEvent('retry scheduled', { 'nestjs_sqlite_queue.job.retry_at': new Date(retryAt).toISOString() });
        span.end();
      },
      ended: (event, eventAttributes) => this.endOk(span, event, eventAttributes),
    };
  }

  private endOk(span: Span, event: string, attributes?: Attributes): void {
    span.addEvent(event, attributes);
    span.setStatus({ code: this.api.SpanStatusCode.OK });
    span.end();
  }

  /** The remote span context a job stored, or null when it stored none this library can read. */
  private remoteContext(stored: string): { spanContext: SpanContext; link: boolean } | null {
    const decoded = decodeTraceContext(stored);
    if (!decoded) return null;
    const { api } = this;
    const { traceId, spanId, traceFlags, traceState } = decoded.ids;
    const spanContext: SpanContext = { traceId, spanId, traceFlags, isRemote: true };
    if (traceState && typeof api.createTraceState === 'function') spanContext.traceState = api.createTraceState(traceState);
    return api.isSpanContextValid(spanContext) ? { spanContext, link: decoded.link } : null;
  }
}

function idsOf(spanContext: SpanContext): { traceId: string; spanId: string; traceFlags: number; traceState?: string } {
  return {
    traceId: spanContext.traceId,
    spanId: spanContext.spanId,
    traceFlags: spanContext.traceFlags,
    traceState: spanContext.traceState?.serialize(),
  };
}

function asException(error: unknown): { name: string; message: string; stack?: string } {
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack };
  return { name: 'Error', message: String(error) };
}
