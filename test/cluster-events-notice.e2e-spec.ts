/**
 * Issue 29 item 7: cluster events must not go quiet by surprise. Without `clusterEvents`, a `@QueueEventsListener` or a
 * `QueueEvents` subscription hears only its own process, and a process that runs jobs publishes nothing for processes
 * that listen with `clusterEvents: true`: each case logs one clear line (the listener side at boot or at the first
 * subscription, the running side once such a listener exists). Two apps on one database are two processes to it: each
 * has its own instance id in the shared event log.
 */
import { Injectable, LoggerService } from '@nestjs/common';
import { Job, OnQueueEvent, Processor, QueueEvent, QueueEvents, QueueEventsListener, QueueProcessor } from '../lib';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

class CapturingLogger implements LoggerService {
  readonly lines: string[] = [];
  log(message: unknown): void {
    this.lines.push(`log ${String(message)}`);
  }
  error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
  debug(): void {}
  verbose(): void {}
}

@Injectable()
@QueueEventsListener('noticed')
class CompletionListener {
  readonly heard: QueueEvent[] = [];
  @OnQueueEvent('completed') onCompleted(event: QueueEvent) {
    this.heard.push(event);
  }
}

@Processor('noticed')
class NoticedProcessor implements QueueProcessor {
  async process(_job: Job): Promise<void> {}
}

const POLL = 100;
const LOCAL_ONLY = /clusterEvents is off in this process, so they hear only this process's job events/;
const UNHEARD = /Some process listens to cluster events on this database \(clusterEvents: true\), but clusterEvents is off/;

describeEachBackend('cluster events that do not go quiet by surprise', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('a @QueueEventsListener without clusterEvents says at boot, once, that it hears only this process', async () => {
    const logger = new CapturingLogger();
    await current.startApp({ module: { pollInterval: POLL, processing: false }, providers: [CompletionListener], logger });
    const lines = logger.lines.filter((line) => LOCAL_ONLY.test(line));
    expect(lines).toEqual([
      expect.stringMatching(/^log @QueueEventsListener class CompletionListener \('noticed'\): clusterEvents is off/),
    ]);
    expect(lines[0]).toContain('docs/observability.md#cluster-events');
  });

  it('a QueueEvents subscription without clusterEvents says so once; with clusterEvents nothing is said', async () => {
    const logger = new CapturingLogger();
    const app = await current.startApp({ module: { pollInterval: POLL, processing: false }, logger });
    const events = app.get(QueueEvents);
    const subscriptions = [events.subscribe(() => undefined), events.on('completed').subscribe(() => undefined)];
    expect(logger.lines.filter((line) => LOCAL_ONLY.test(line))).toEqual([expect.stringMatching(/^log QueueEvents subscribers: /)]);
    subscriptions.forEach((subscription) => subscription.unsubscribe());

    const quiet = new CapturingLogger();
    const clustered = await current.startApp({
      module: { pollInterval: POLL, processing: false, clusterEvents: true },
      providers: [CompletionListener],
      logger: quiet,
    });
    clustered
      .get(QueueEvents)
      .subscribe(() => undefined)
      .unsubscribe();
    expect(quiet.lines.filter((line) => LOCAL_ONLY.test(line))).toEqual([]);
  });

  it('a process that runs jobs without clusterEvents warns at boot when another process listens with it', async () => {
    const logger = new CapturingLogger();
    const listener = await current.startApp({
      module: { pollInterval: POLL, processing: false, clusterEvents: true },
      providers: [CompletionListener],
      logger,
    });
    await listener.get(QueueEvents).listening();
    await current.startApp({ module: { pollInterval: POLL }, providers: [NoticedProcessor], logger });
    const warnings = logger.lines.filter((line) => UNHEARD.test(line));
    expect(warnings).toEqual([expect.stringMatching(/^warn /)]);
    expect(warnings[0]).toContain('docs/observability.md#cluster-events');
  });

  it('says nothing when nobody listens, or when the process that runs jobs has clusterEvents too', async () => {
    const logger = new CapturingLogger();
    await current.startApp({ module: { pollInterval: POLL }, providers: [NoticedProcessor], logger });
    const listener = await current.startApp({
      module: { pollInterval: POLL, processing: false, clusterEvents: true },
      providers: [CompletionListener],
      logger,
    });
    await listener.get(QueueEvents).listening();
    await current.startApp({ module: { pollInterval: POLL, clusterEvents: true }, providers: [NoticedProcessor], logger });
    expect(logger.lines.filter((line) => UNHEARD.test(line) || LOCAL_ONLY.test(line))).toEqual([]);
  });
});
