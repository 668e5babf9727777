/**
 * Cluster events must not go quiet by surprise. Without `clusterEvents`, a `@QueueEventsListener` or a
 * `QueueEvents` subscription hears only its own process, and a process that runs jobs publishes nothing for processes
 * that listen with `clusterEvents: true`, nor does one that only adds jobs (its `added` events): each case logs one
 * clear line (the listener side at boot or at the first subscription, the running or adding side once such a listener
 * exists, at boot or at a later look). Two apps on one database are two processes to it: each has its own instance id
 * in the shared event log.
 */
import { Injectable, LoggerService } from '@nestjs/common';
import {
  Job,
  OnQueueEvent,
  Processor,
  QueueEvent,
  QueueEvents,
  QueueEventsListener,
  QueueProcessor,
  QueueProducer,
  SqliteQueueModule,
} from '../lib';
import { AppConnection, appConnection, rolledBack } from './support/app-connection';
import { CLUSTER_NOTICE_TIMING } from '../lib/events/cluster-events-notice';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

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
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  /** An app that listens with clusterEvents (CompletionListener), logging to `logger`, once its reader is registered. */
  async function startListening(logger: CapturingLogger): Promise<void> {
    const listener = await current.startApp({
      module: { pollInterval: POLL, processing: false, clusterEvents: true },
      providers: [CompletionListener],
      logger,
    });
    await listener.get(QueueEvents).listening();
  }

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
    await startListening(logger);
    await current.startApp({ module: { pollInterval: POLL }, providers: [NoticedProcessor], logger });
    const warnings = logger.lines.filter((line) => UNHEARD.test(line));
    expect(warnings).toEqual([expect.stringMatching(/^warn /)]);
    expect(warnings[0]).toContain('docs/observability.md#cluster-events');
  });

  it('a process that only adds jobs, without clusterEvents, warns at its first add: its added events are not heard', async () => {
    const logger = new CapturingLogger();
    await startListening(logger);
    const producer = await current.startApp({ module: { pollInterval: POLL, processing: false }, logger });
    const unheard = () => logger.lines.filter((line) => UNHEARD.test(line));
    // A process that never adds (a dashboard's, a CLI's) is told nothing: it publishes nothing anyone misses.
    expect(unheard()).toEqual([]);
    await producer.get(QueueProducer).add('noticed', { n: 1 });
    await producer.get(QueueProducer).add('noticed', { n: 2 });
    await waitFor(() => unheard().length > 0, 'the warning after the first add');
    const warnings = unheard();
    expect(warnings).toEqual([expect.stringMatching(/^warn /)]);
    expect(warnings[0]).toContain("it runs no jobs, and the 'added' events of the jobs it adds are not published");
    expect(warnings[0]).toContain('docs/observability.md#cluster-events');
  });

  it('a process that only adds jobs in transactions (manager) warns once the first of them commits', async () => {
    const logger = new CapturingLogger();
    await startListening(logger);
    connection = await appConnection(current);
    const { dataSource } = connection;
    const producer = (
      await current.startApp({
        replaceImports: true,
        imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: POLL, processing: false })],
        logger,
      })
    ).get(QueueProducer);
    const unheard = () => logger.lines.filter((line) => UNHEARD.test(line));
    // Rolled back: no job was added, nothing was missed.
    await rolledBack(dataSource, (manager) => producer.add('noticed', { n: 1 }, { manager }));
    await dataSource.transaction((manager) => producer.add('noticed', { n: 2 }, { manager }));
    await waitFor(() => unheard().length > 0, 'the warning after the first commit');
    expect(unheard()).toEqual([expect.stringMatching(/^warn .*'added' events of the jobs it adds are not published/)]);
  });

  describe('with the recheck interval set short (it is a minute)', () => {
    const minute = CLUSTER_NOTICE_TIMING.recheckMs;
    beforeEach(() => (CLUSTER_NOTICE_TIMING.recheckMs = 50));
    afterEach(() => (CLUSTER_NOTICE_TIMING.recheckMs = minute));

    it('notices a listener that appears after boot, at a later look, with one warning', async () => {
      const logger = new CapturingLogger();
      const unheard = () => logger.lines.filter((line) => UNHEARD.test(line));
      await current.startApp({ module: { pollInterval: POLL }, providers: [NoticedProcessor], logger });
      expect(unheard()).toEqual([]);
      // The same logger: Nest's Logger writes to the logger of the app started last, whichever app logs.
      await startListening(logger);
      await waitFor(() => unheard().length > 0, 'the warning of a later look');
      expect(unheard()).toEqual([expect.stringMatching(/^warn .*the events of the jobs it runs are not published/)]);
    });
  });

  it('says nothing when nobody listens, or when the process that runs jobs has clusterEvents too', async () => {
    const logger = new CapturingLogger();
    await current.startApp({ module: { pollInterval: POLL }, providers: [NoticedProcessor], logger });
    await startListening(logger);
    await current.startApp({ module: { pollInterval: POLL, clusterEvents: true }, providers: [NoticedProcessor], logger });
    expect(logger.lines.filter((line) => UNHEARD.test(line) || LOCAL_ONLY.test(line))).toEqual([]);
  });
});
