/**
 * OpenTelemetry across apps and OS processes, with the real SDK (test/support/tracing.ts). A request
 * span in one app, the job run by another app or by a child process on the same database: one trace, a PRODUCER span
 * `send <queue>` under the request and a CONSUMER span `process <queue>` per attempt under it, the handler's own span
 * under that. And the module without the package (hidden from module resolution in a child), and `telemetry: false`.
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { context, createTraceState, trace } from '@opentelemetry/api';
import { Injectable } from '@nestjs/common';
import {
  GroupRateLimitError,
  InvalidModuleOptionsError,
  Job,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  RateLimitError,
  SnoozeError,
  SqliteQueueModule,
} from '../lib';
import { resolveModuleOptions } from '../lib/runtime/resolve-module-options';
import { appConnection } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { ChildApp, startChildApp, startScript } from './support/child-app';
import { KIND, STATUS, SpanRecord, installTracing } from './support/tracing';
import { waitFor } from './support/wait-for';
import { rawSql } from './fixtures/legacy-schema';
import type { TracedAppConfig, TracedJobData } from './fixtures/traced-app';

const POLL = 100;
const WATCH = join(__dirname, 'support', 'opentelemetry-watch.js');

@Processor('traced', { backoff: { type: 'fixed', delay: 10 } })
class TracedProcessor implements QueueProcessor<TracedJobData, string> {
  async process(job: Job<TracedJobData>): Promise<string> {
    // No context passed: the CONSUMER span must be the active one.
    trace.getTracer('test').startSpan('handler work').end();
    if (job.attempt <= (job.data.failTimes ?? 0)) throw new Error(`planned failure ${job.attempt}`);
    return 'done';
  }
}

/** What a job of queue `endings` does on its first run; the run after it completes. */
type Ending = 'snooze' | 'rateLimit' | 'groupRateLimit' | 'block';
/** Jobs whose first run has started (per job id): the ending is played once. */
const endingsStarted = new Set<string>();

@Processor('endings')
class EndingsProcessor implements QueueProcessor<{ ending: Ending }, string> {
  async process(job: Job<{ ending: Ending }>): Promise<string> {
    if (endingsStarted.has(job.id)) return 'done';
    endingsStarted.add(job.id);
    if (job.data.ending === 'snooze') throw new SnoozeError(10);
    if (job.data.ending === 'rateLimit') throw new RateLimitError(10);
    if (job.data.ending === 'groupRateLimit') throw new GroupRateLimitError(10);
    // Runs until its signal is aborted (a cancel or a shutdown), and honours it.
    return new Promise<string>((_, reject) => {
      const signal = job.signal;
      signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
    });
  }
}

@Injectable()
class SignupService {
  constructor(private readonly producer: QueueProducer) {}

  /** What an HTTP handler under the Nest OpenTelemetry SDK does: enqueue inside the request's span. */
  signUp(data: TracedJobData, maxAttempts = 3): Promise<string> {
    return trace.getTracer('test').startActiveSpan('POST /signup', async (span) => {
      try {
        return (await this.producer.add('traced', data, { maxAttempts })).id;
      } finally {
        span.end();
      }
    });
  }
}

const spans: SpanRecord[] = [];
let tracing: { uninstall(): Promise<void> };
beforeAll(() => (tracing = installTracing((span) => spans.push(span))));
afterAll(() => tracing.uninstall());
beforeEach(() => {
  spans.splice(0);
  // Job ids start again in each test's database.
  endingsStarted.clear();
});

const named = (all: SpanRecord[], name: string) => all.filter((span) => span.name === name);
const one = (all: SpanRecord[], name: string) => {
  const found = named(all, name);
  expect(found).toHaveLength(1);
  return found[0];
};

describeEachBackend('OpenTelemetry traces from the request to the handler', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let child: ChildApp | undefined;
  afterEach(async () => {
    await child?.stop();
    child = undefined;
  });

  /** An API app (processing: false) and a worker app on the same database. */
  async function apps(producerModule = {}, workerModule = {}) {
    const api = await current.startApp({
      module: { pollInterval: POLL, processing: false, ...producerModule },
      providers: [SignupService],
    });
    const worker = await current.startApp({ module: { pollInterval: POLL, ...workerModule }, providers: [TracedProcessor] });
    return { signup: api.get(SignupService), producer: api.get(QueueProducer), admin: worker.get(QueueAdmin) };
  }

  async function finished(admin: QueueAdmin, id: string, status: 'completed' | 'failed'): Promise<void> {
    await waitFor(async () => (await admin.getJob(id))?.status === status, `job ${id} ${status}`);
  }

  it('makes one trace: request, PRODUCER send, a CONSUMER process span per attempt, and the handler span under each', async () => {
    const { signup, admin } = await apps();
    const id = await signup.signUp({ failTimes: 1 });
    await finished(admin, id, 'completed');
    await waitFor(() => named(spans, 'handler work').length === 2, 'two handler spans');
    const request = one(spans, 'POST /signup');
    const send = one(spans, 'send traced');
    expect(send).toMatchObject({ kind: KIND.producer, traceId: request.traceId, parentSpanId: request.spanId });
    expect(send.attributes).toMatchObject({
      'messaging.system': 'nestjs-sqlite-queue',
      'messaging.destination.name': 'traced',
      'messaging.message.id': id,
      'messaging.operation.type': 'send',
    });
    const attempts = named(spans, 'process traced').sort(
      (a, b) => Number(a.attributes['nestjs_sqlite_queue.job.attempt']) - Number(b.attributes['nestjs_sqlite_queue.job.attempt']),
    );
    expect(attempts).toHaveLength(2);
    for (const [index, attempt] of attempts.entries()) {
      expect(attempt).toMatchObject({ kind: KIND.consumer, traceId: request.traceId, parentSpanId: send.spanId });
      expect(attempt.attributes).toMatchObject({
        'messaging.system': 'nestjs-sqlite-queue',
        'messaging.destination.name': 'traced',
        'messaging.message.id': id,
        'messaging.operation.type': 'process',
        'nestjs_sqlite_queue.job.attempt': index + 1,
      });
    }
    expect(attempts[0].status).toEqual({ code: STATUS.error, message: 'Error: planned failure 1' });
    expect(attempts[0].events.map((event) => event.name)).toEqual(['exception', 'retry scheduled']);
    expect(attempts[0].events[0].attributes).toMatchObject({ 'exception.type': 'Error', 'exception.message': 'planned failure 1' });
    expect(attempts[1].status.code).toBe(STATUS.ok);
    const handlers = named(spans, 'handler work');
    expect(handlers.map((span) => span.parentSpanId).sort()).toEqual(attempts.map((span) => span.spanId).sort());
    expect(new Set(handlers.map((span) => span.traceId))).toEqual(new Set([request.traceId]));
  });

  it('carries the caller’s tracestate beside its traceparent: stored with the job, on the PRODUCER and every CONSUMER span', async () => {
    const { signup, admin } = await apps();
    // The request arrived with W3C headers from an upstream service: a remote parent with vendor entries.
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const traceState = 'vendor=opaque-value,other=1';
    const upstream = trace.setSpanContext(context.active(), {
      traceId,
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
      isRemote: true,
      traceState: createTraceState(traceState),
    });
    const id = await context.with(upstream, () => signup.signUp({ failTimes: 1 }));
    await finished(admin, id, 'completed');
    await waitFor(() => named(spans, 'handler work').length === 2, 'two handler spans');
    const send = one(spans, 'send traced');
    expect(send).toMatchObject({ traceId, traceState });
    const [row] = await rawSql<{ trace_context: string }>(
      current.db,
      ['SELECT trace_context FROM {schema}.nest_queue_jobs WHERE id = ?'],
      [Number(id)],
    );
    expect(JSON.parse(row.trace_context)).toEqual({ traceparent: `00-${traceId}-${send.spanId}-01`, tracestate: traceState });
    const attempts = named(spans, 'process traced');
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(attempt).toMatchObject({ traceId, parentSpanId: send.spanId, traceState });
    for (const handler of named(spans, 'handler work')) expect(handler).toMatchObject({ traceId, traceState });
  });

  it('ends the last attempt of a failed job with status ERROR and the exception recorded', async () => {
    const { signup, admin } = await apps();
    const id = await signup.signUp({ failTimes: 9 }, 1);
    await finished(admin, id, 'failed');
    await waitFor(() => named(spans, 'process traced').length === 1, 'the CONSUMER span');
    const [attempt] = named(spans, 'process traced');
    expect(attempt.status).toEqual({ code: STATUS.error, message: 'Error: planned failure 1' });
    expect(attempt.events.map((event) => event.name)).toEqual(['exception']);
    expect(attempt.events[0].attributes['exception.stacktrace']).toEqual(expect.stringContaining('planned failure 1'));
  });

  describe('an attempt without an outcome of its own ends OK with an event that says why', () => {
    const processSpans = () =>
      named(spans, 'process endings').sort(
        (a, b) => Number(a.events.length === 0) - Number(b.events.length === 0), // the ended one (with its event) first
      );

    it('a snooze, then the completion: two CONSUMER spans, the first OK with the snooze event', async () => {
      const worker = await current.startApp({ module: { pollInterval: POLL }, providers: [EndingsProcessor] });
      const admin = worker.get(QueueAdmin);
      const job = await worker.get(QueueProducer).add('endings', { ending: 'snooze' });
      await finished(admin, job.id, 'completed');
      await waitFor(() => named(spans, 'process endings').length === 2, 'two CONSUMER spans');
      const [snoozed, completed] = processSpans();
      expect(snoozed.status.code).toBe(STATUS.ok);
      expect(snoozed.events.map((event) => event.name)).toEqual(['snoozed: the job goes back to pending, unspent']);
      expect(snoozed.events[0].attributes['nestjs_sqlite_queue.job.snoozed_until']).toEqual(expect.any(String));
      expect(completed).toMatchObject({ status: { code: STATUS.ok }, events: [] });
      // A snooze spends no attempt: both runs are attempt 1.
      expect([snoozed, completed].map((span) => span.attributes['nestjs_sqlite_queue.job.attempt'])).toEqual([1, 1]);
    });

    it('a rate limit, then the completion: the first span OK with the rate-limit event and when the queue resumes', async () => {
      const worker = await current.startApp({ module: { pollInterval: POLL }, providers: [EndingsProcessor] });
      const admin = worker.get(QueueAdmin);
      const job = await worker.get(QueueProducer).add('endings', { ending: 'rateLimit' });
      await finished(admin, job.id, 'completed');
      await waitFor(() => named(spans, 'process endings').length === 2, 'two CONSUMER spans');
      const [limited, completed] = processSpans();
      expect(limited.status.code).toBe(STATUS.ok);
      expect(limited.events.map((event) => event.name)).toEqual(['rate limited: the job goes back to pending, unspent']);
      expect(limited.events[0].attributes['nestjs_sqlite_queue.queue.paused_until']).toEqual(expect.any(String));
      expect(completed.status.code).toBe(STATUS.ok);
    });

    it('a group rate limit, then the completion: the first span OK with the group rate-limit event and when the group resumes', async () => {
      const worker = await current.startApp({ module: { pollInterval: POLL }, providers: [EndingsProcessor] });
      const admin = worker.get(QueueAdmin);
      const job = await worker.get(QueueProducer).add('endings', { ending: 'groupRateLimit' }, { group: 'tenant-1' });
      await finished(admin, job.id, 'completed');
      await waitFor(() => named(spans, 'process endings').length === 2, 'two CONSUMER spans');
      const [limited, completed] = processSpans();
      expect(limited.status.code).toBe(STATUS.ok);
      expect(limited.events.map((event) => event.name)).toEqual(['group rate limited: the job goes back to pending, unspent']);
      expect(limited.events[0].attributes['nestjs_sqlite_queue.group.paused_until']).toEqual(expect.any(String));
      expect(completed.status.code).toBe(STATUS.ok);
    });

    it('a cancel while running: one span, OK, with the cancel event', async () => {
      const worker = await current.startApp({ module: { pollInterval: POLL }, providers: [EndingsProcessor] });
      const admin = worker.get(QueueAdmin);
      const job = await worker.get(QueueProducer).add('endings', { ending: 'block' });
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'the job runs');
      await admin.cancel(job.id);
      await waitFor(() => named(spans, 'process endings').length === 1, 'the CONSUMER span');
      const [cancelled] = named(spans, 'process endings');
      expect(cancelled.status.code).toBe(STATUS.ok);
      expect(cancelled.events.map((event) => event.name)).toEqual(['cancelled while running']);
    });

    it('a hand-back at shutdown: one span, OK, with the hand-back event', async () => {
      const worker = await current.startApp({ module: { pollInterval: POLL, shutdownTimeout: 100 }, providers: [EndingsProcessor] });
      const admin = worker.get(QueueAdmin);
      const job = await worker.get(QueueProducer).add('endings', { ending: 'block' });
      await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'the job runs');
      await current.close(worker);
      await waitFor(() => named(spans, 'process endings').length === 1, 'the CONSUMER span');
      const [handedBack] = named(spans, 'process endings');
      expect(handedBack.status.code).toBe(STATUS.ok);
      expect(handedBack.events.map((event) => event.name)).toEqual(['handed back at shutdown']);
    });
  });

  it('names the job and its group on the CONSUMER span, and the job name on the PRODUCER span', async () => {
    const { producer, admin } = await apps();
    const job = await producer.add('traced', {}, { name: 'welcome-mail', group: 'tenant-7' });
    const plain = await producer.add('traced', {});
    await finished(admin, job.id, 'completed');
    await finished(admin, plain.id, 'completed');
    await waitFor(() => named(spans, 'process traced').length === 2, 'two CONSUMER spans');
    const consumerOf = (id: string) => named(spans, 'process traced').find((span) => span.attributes['messaging.message.id'] === id)!;
    expect(consumerOf(job.id).attributes).toMatchObject({
      'nestjs_sqlite_queue.job.name': 'welcome-mail',
      'nestjs_sqlite_queue.job.group': 'tenant-7',
    });
    const sendOf = (id: string) => named(spans, 'send traced').find((span) => span.attributes['messaging.message.id'] === id)!;
    expect(sendOf(job.id).attributes['nestjs_sqlite_queue.job.name']).toBe('welcome-mail');
    // Neither is set on a job that has none.
    expect(consumerOf(plain.id).attributes['nestjs_sqlite_queue.job.name']).toBeUndefined();
    expect(consumerOf(plain.id).attributes['nestjs_sqlite_queue.job.group']).toBeUndefined();
  });

  it('links each CONSUMER span of a bulk add to its one PRODUCER span, and parents a flow under its PRODUCER span', async () => {
    const { producer, admin } = await apps();
    const jobs = await trace.getTracer('test').startActiveSpan('bulk request', async (span) => {
      try {
        return await producer.addBulk<TracedJobData>('traced', [{ data: {} }, { data: {} }]);
      } finally {
        span.end();
      }
    });
    const flow = await producer.addFlow({ queue: 'traced', data: {}, children: [{ queue: 'traced', data: {} }] });
    for (const job of [...jobs, flow]) await finished(admin, job.id, 'completed');
    await waitFor(() => named(spans, 'process traced').length === 4, 'four CONSUMER spans');
    const [bulkSend, flowSend] = named(spans, 'send traced');
    expect(bulkSend.attributes['messaging.batch.message_count']).toBe(2);
    // One span for the whole add: it names no one job as the message it sent.
    expect(bulkSend.attributes['messaging.message.id']).toBeUndefined();
    const consumers = named(spans, 'process traced');
    const bulk = consumers.filter((span) => jobs.some((job) => job.id === span.attributes['messaging.message.id']));
    expect(bulk).toHaveLength(2);
    for (const span of bulk) {
      expect(span.links).toEqual([{ traceId: bulkSend.traceId, spanId: bulkSend.spanId }]);
      expect(span.parentSpanId).toBeUndefined();
    }
    const flowSpans = consumers.filter((span) => !bulk.includes(span));
    expect(flowSpans.map((span) => [span.traceId, span.parentSpanId])).toEqual([
      [flowSend.traceId, flowSend.spanId],
      [flowSend.traceId, flowSend.spanId],
    ]);
  });

  it('treats a bulk add of one job as a batch of one: its PRODUCER span counts 1 and names no message, the CONSUMER span links to it', async () => {
    const { producer, admin } = await apps();
    const [job] = await producer.addBulk<TracedJobData>('traced', [{ data: {} }]);
    await finished(admin, job.id, 'completed');
    await waitFor(() => named(spans, 'process traced').length === 1, 'one CONSUMER span');
    const send = one(spans, 'send traced');
    expect(send.attributes['messaging.batch.message_count']).toBe(1);
    expect(send.attributes['messaging.message.id']).toBeUndefined();
    const consumer = one(spans, 'process traced');
    expect(consumer.links).toEqual([{ traceId: send.traceId, spanId: send.spanId }]);
    expect(consumer.parentSpanId).toBeUndefined();
  });

  it('continues the trace of a job added in the caller’s own transaction (options.manager)', async () => {
    const connection = await appConnection(current);
    const worker = await current.startApp({ module: { pollInterval: POLL }, providers: [TracedProcessor] });
    const api = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: POLL, processing: false })],
    });
    try {
      const producer = api.get(QueueProducer);
      const id = await trace.getTracer('test').startActiveSpan('tx request', async (span) => {
        try {
          return await connection.dataSource.transaction(async (manager) => (await producer.add('traced', {}, { manager })).id);
        } finally {
          span.end();
        }
      });
      await finished(worker.get(QueueAdmin), id, 'completed');
      await waitFor(() => named(spans, 'process traced').length === 1, 'the CONSUMER span');
      expect(one(spans, 'send traced').parentSpanId).toBe(one(spans, 'tx request').spanId);
      expect(one(spans, 'process traced').parentSpanId).toBe(one(spans, 'send traced').spanId);
    } finally {
      // The borrowed DataSource outlives the app that used it.
      await current.close(api);
      await current.close(worker);
      await connection.destroy();
    }
  });

  it('makes one trace across OS processes: the job is run by a child process with its own SDK', async () => {
    const { signup, admin } = await apps({}, { processing: false });
    const config: TracedAppConfig = { connection: current.db.options, module: { pollInterval: POLL } };
    child = startScript('test/fixtures/traced-app.ts', [JSON.stringify(config)]);
    await child.printed('READY');
    const id = await signup.signUp({ failTimes: 1 });
    await finished(admin, id, 'completed');
    const childSpans = () =>
      child!
        .stdout()
        .split('\n')
        .filter((line) => line.startsWith('SPAN '))
        .map((line) => JSON.parse(line.slice(5)) as SpanRecord);
    await waitFor(() => named(childSpans(), 'handler work').length === 2, 'two handler spans in the child');
    const send = one(spans, 'send traced');
    const attempts = named(childSpans(), 'process traced');
    expect(attempts.map((span) => [span.traceId, span.parentSpanId, span.kind])).toEqual([
      [send.traceId, send.spanId, KIND.consumer],
      [send.traceId, send.spanId, KIND.consumer],
    ]);
    expect(attempts.map((span) => span.status.code).sort()).toEqual([STATUS.ok, STATUS.error]);
    expect(named(childSpans(), 'handler work').every((span) => attempts.some((attempt) => attempt.spanId === span.parentSpanId))).toBe(
      true,
    );
  }, 60_000); // one child start

  it('telemetry: false in the producer stores no trace context: the worker starts a trace of its own', async () => {
    const { signup, admin } = await apps({ telemetry: false });
    const id = await signup.signUp({});
    await finished(admin, id, 'completed');
    await waitFor(() => named(spans, 'process traced').length === 1, 'the CONSUMER span');
    const request = one(spans, 'POST /signup');
    expect(named(spans, 'send traced')).toEqual([]);
    const consumer = one(spans, 'process traced');
    expect(consumer.parentSpanId).toBeUndefined();
    expect(consumer.traceId).not.toBe(request.traceId);
  });

  it('telemetry: false in the worker makes no CONSUMER span; the handler runs outside any queue span', async () => {
    const { signup, admin } = await apps({}, { telemetry: false });
    const id = await signup.signUp({});
    await finished(admin, id, 'completed');
    await waitFor(() => named(spans, 'handler work').length === 1, 'the handler span');
    expect(named(spans, 'process traced')).toEqual([]);
    expect(one(spans, 'handler work').parentSpanId).not.toBe(one(spans, 'send traced').spanId);
  });

  describe('in a child process that watches what is required', () => {
    async function runWatched(mode: 'hide' | 'watch', module: object): Promise<string[]> {
      const file = join(current.db.dir, `otel-${mode}.log`);
      const done = join(current.db.dir, 'done.log');
      child = startScriptWatched(mode, file, {
        connection: current.db.options,
        module: { pollInterval: POLL, ...module },
        queues: [{ name: 'plain' }],
        produce: { queue: 'plain', count: 3, single: true },
        doneLog: done,
      });
      await child.printed('PRODUCED');
      await waitFor(() => existsSync(done) && readFileSync(done, 'utf8').trim().split('\n').length === 3, 'three jobs done in the child');
      expect(await child.stop()).toBe(0);
      child = undefined;
      return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
    }

    it('without @opentelemetry/api the module loads, adds and runs jobs, and loads nothing of OpenTelemetry', async () => {
      expect(await runWatched('hide', {})).toEqual(['requested']);
    }, 60_000); // one child start

    it('with telemetry: false the package is never required, though it is installed', async () => {
      expect(await runWatched('watch', { telemetry: false })).toEqual([]);
    }, 60_000); // one child start
  });
});

/** `startChildApp` with test/support/opentelemetry-watch.js preloaded. */
function startScriptWatched(mode: 'hide' | 'watch', file: string, config: Parameters<typeof startChildApp>[0]): ChildApp {
  return startScript('test/fixtures/queue-app.ts', [JSON.stringify(config)], {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${WATCH}`.trim(),
    OTEL_WATCH_MODE: mode,
    OTEL_WATCH_FILE: file,
  });
}

describe('the telemetry option', () => {
  it('refuses anything but true or false, naming the option', () => {
    const given = { database: ':memory:', telemetry: 'yes' as unknown as boolean };
    expect(() => resolveModuleOptions(given)).toThrow(InvalidModuleOptionsError);
    expect(() => resolveModuleOptions(given)).toThrow(/telemetry.*must be true or false, got "yes"/);
  });
});
