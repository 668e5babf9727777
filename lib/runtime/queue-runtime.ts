import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Observable, Subscription, filter, merge, take } from 'rxjs';
import { QueueAlreadyRegisteredError } from '../errors/queue-already-registered.error';
import { ClusterEventFeed, READER_TTL_MS } from '../events/cluster-event-feed';
import { ClusterEventPublisher } from '../events/cluster-event-publisher';
import { CLUSTER_NOTICE_TIMING, ClusterEventsNotice } from '../events/cluster-events-notice';
import { FinishWatcher } from '../events/finish-watcher';
import { RecentCompletions } from '../events/recent-completions';
import { JobEventBus } from '../events/job-event-bus';
import { JobEventType, QueueEvent } from '../interfaces/queue-event.interface';
import { PayloadSchema } from '../interfaces/payload-schema.interface';
import { SqliteQueueModuleOptions } from '../interfaces/sqlite-queue-module-options.interface';
import { toScheduleRecord } from '../scheduler/schedule-definition';
import { Scheduler } from '../scheduler/scheduler';
import { SQLITE_QUEUE_MODULE_OPTIONS } from '../sqlite-queue.constants';
import { QueueStorage } from '../storage/queue-storage.interface';
import { QueueTelemetry } from '../telemetry/queue-telemetry';
import { ProcessorDefinition } from '../worker/processor-definition';
import { createQueueStorage } from './create-queue-storage';
import { ProcessingRuntime } from './processing-runtime';
import { checkScheduleData } from '../utils/payload-schema.util';
import { ResolvedModuleOptions, resolveModuleOptions } from './resolve-module-options';

/**
 * The process-wide owner of the queue: the storage (and its DataSource), the registered processors, the
 * event bus and, in processing processes, the runtime with the one shared poller. It is the single place
 * where start and stop order is decided, on Nest's lifecycle hooks.
 */
@Injectable()
export class QueueRuntime implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  /** Job events of this process. */
  readonly events = new JobEventBus();
  private readonly logger = new Logger('JobQueue');
  /** Says so when, without `clusterEvents`, events stay in their process. */
  private readonly clusterNotice = new ClusterEventsNotice(this.logger);
  private readonly definitions = new Map<string, ProcessorDefinition>();
  /**
   * Each queue's payload schema declared in this application (`schema` of `@Processor` or `registerQueue`); undefined
   * while there is none, so an add in an application without schemas reads one field more and nothing else.
   */
  payloadSchemas?: Map<string, PayloadSchema>;
  /** Queues this application declared with `registerQueue` (a handle), processed here or not. */
  private readonly declared = new Set<string>();
  private readonly listeners: Subscription[] = [];
  private resolved?: ResolvedModuleOptions;
  private storagePromise?: Promise<QueueStorage>;
  private runtimeInstance?: ProcessingRuntime;
  private publisher?: ClusterEventPublisher;
  private feed?: ClusterEventFeed;
  private watcher?: FinishWatcher;
  /** Jobs this process's completions deleted, for the waits that begin just after (shared by workers and watcher). */
  private readonly recentCompletions = new RecentCompletions();
  private eventStream?: Observable<QueueEvent>;
  /** null: off (`telemetry: false`) or `@opentelemetry/api` absent. */
  private tracing?: QueueTelemetry | null;
  /** This process's identity in the shared event log (unlike `workerId`, never shared by two processes). */
  readonly instanceId = randomUUID();

  /**
   * Set before the first `storage()` by tools that must change no byte of a SQLite file (the CLI's reading
   * commands): the file is opened read-only and never migrated. Not a module option: an application writes.
   */
  readOnlyStorage = false;

  constructor(@Inject(SQLITE_QUEUE_MODULE_OPTIONS) private readonly rawOptions: SqliteQueueModuleOptions) {}

  /** The validated options with defaults; throws `InvalidModuleOptionsError`. */
  get options(): ResolvedModuleOptions {
    this.resolved ??= resolveModuleOptions(this.rawOptions);
    return this.resolved;
  }

  /**
   * The process's OpenTelemetry spans, or undefined when `telemetry` is false or `@opentelemetry/api` is not
   * installed. The package is required on the first call, never before (the options are validated first).
   */
  get telemetry(): QueueTelemetry | undefined {
    if (this.tracing === undefined) this.tracing = QueueTelemetry.create(this.options.telemetry) ?? null;
    return this.tracing ?? undefined;
  }

  /** The processing runtime (the shared poller and the workers), when this process processes and has started. */
  get processing(): ProcessingRuntime | undefined {
    return this.runtimeInstance;
  }

  /**
   * Validates the options only. The database opens at bootstrap (or at first use), after every processor has
   * been validated: a boot that fails, which Nest does not shut down, then leaves no connection open.
   */
  onModuleInit(): void {
    void this.options;
  }

  /**
   * The initialised storage. Started by whoever needs it first, so a provider that enqueues from its own
   * `onModuleInit` works whatever order Nest runs the hooks in.
   */
  storage(): Promise<QueueStorage> {
    this.storagePromise ??= (async () => {
      const storage = createQueueStorage({ ...this.options, readOnly: this.readOnlyStorage });
      try {
        await storage.initialize();
      } catch (error) {
        await storage.close().catch(() => undefined);
        throw error;
      }
      return storage;
    })();
    return this.storagePromise;
  }

  /**
   * Every job event this process can see: its own, and with `clusterEvents` those of every other process too
   * (read by one shared reader while anything subscribes).
   */
  get allEvents$(): Observable<QueueEvent> {
    this.noticeLocalListeners('QueueEvents subscribers');
    this.eventStream ??= this.options.clusterEvents ? merge(this.events.events$, this.clusterFeed().events$) : this.events.events$;
    return this.eventStream;
  }

  /**
   * Without `clusterEvents`, says once (one log line per process) that `who` hear only this process's events; with
   * it, nothing.
   */
  noticeLocalListeners(who: string): void {
    if (!this.options.clusterEvents) this.clusterNotice.localListeners(who);
  }

  /** Resolves once events of other processes published from now on reach current subscribers (at once without `clusterEvents`). */
  clusterListening(): Promise<void> {
    return this.feed?.listening() ?? Promise.resolve();
  }

  /** The one watcher behind every `waitUntilFinished` of the process. */
  get finishWatcher(): FinishWatcher {
    this.watcher ??= new FinishWatcher(() => this.storage(), this.events, this.options.pollInterval, this.logger, this.recentCompletions);
    return this.watcher;
  }

  private clusterFeed(): ClusterEventFeed {
    this.feed ??= new ClusterEventFeed(() => this.storage(), this.instanceId, this.options.pollInterval, this.logger);
    return this.feed;
  }

  /** Registers a discovered processor; a second one for the same queue is a boot error. */
  registerProcessor(definition: ProcessorDefinition): void {
    const existing = this.definitions.get(definition.queue);
    if (existing) throw new QueueAlreadyRegisteredError(definition.queue, existing.processorName, definition.processorName);
    this.definitions.set(definition.queue, definition);
  }

  /** The processor registered for a queue in this application, if any. */
  getProcessor(queue: string): ProcessorDefinition | undefined {
    return this.definitions.get(queue);
  }

  /**
   * Records the payload schema of a queue. A queue has one schema in an application: a second, different one is
   * refused with `conflict(reason)` (the caller's typed boot error).
   */
  declareSchema(queue: string, schema: PayloadSchema, conflict: (reason: string) => Error): void {
    const schemas = (this.payloadSchemas ??= new Map());
    const existing = schemas.get(queue);
    if (existing !== undefined && existing !== schema) {
      throw conflict(
        `queue "${queue}" already has a different schema in this application (one schema per queue: declare it once, share the object)`,
      );
    }
    schemas.set(queue, schema);
  }

  /** The payload schema of a queue in this application, if it declares one. */
  schemaFor(queue: string): PayloadSchema | undefined {
    return this.payloadSchemas?.get(queue);
  }

  /** Records a queue declared by `registerQueue` / `registerQueueAsync` (its `Queue` handle was built). */
  declareQueue(queue: string): void {
    this.declared.add(queue);
  }

  /**
   * Whether this application itself names the queue: a processor of it, or a `registerQueue` handle. Such a queue
   * may be paused (or cleaned) before its first job; the database knows the others.
   */
  declaresQueue(queue: string): boolean {
    return this.definitions.has(queue) || this.declared.has(queue);
  }

  /** Every queue this application declares: its processors' and its `registerQueue` handles'. */
  declaredQueues(): string[] {
    return [...new Set([...this.definitions.keys(), ...this.declared])];
  }

  /** Every processor registered in this application. */
  processors(): ProcessorDefinition[] {
    return [...this.definitions.values()];
  }

  /**
   * Calls `listener` with the events of one type of one queue. A listener that throws or rejects is logged
   * with the job and never reaches the engine.
   */
  addEventListener(
    queue: string | undefined,
    type: JobEventType,
    listener: (event: QueueEvent) => unknown,
    label: string,
    source: Observable<QueueEvent> = this.events.events$,
  ): void {
    const report = (error: unknown, event: QueueEvent) =>
      this.logger.error(
        `Event listener ${label} threw on '${type}' of job ${event.jobId} (queue ${event.queue}): ${String(error)}`,
        (error as Error)?.stack,
      );
    this.listeners.push(
      source.pipe(filter((event) => event.type === type && (queue === undefined || event.queue === queue))).subscribe((event) => {
        try {
          const returned = listener(event);
          if (returned instanceof Promise) returned.catch((error: unknown) => report(error, event));
        } catch (error) {
          report(error, event);
        }
      }),
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    const options = this.options;
    const storage = await this.storage();
    if (options.clusterEvents) {
      this.publisher = new ClusterEventPublisher(
        this.events,
        () => this.storage(),
        // Readers poll every pollInterval: keep events for many of their periods, at least five minutes.
        {
          origin: this.instanceId,
          retention: Math.max(300_000, 20 * options.pollInterval),
          pruneInterval: 30_000,
          flushDelay: Math.min(100, options.pollInterval / 2),
          checkInterval: options.pollInterval,
          readerTtl: READER_TTL_MS,
          readingHere: () => this.feed?.reading ?? false,
        },
        this.logger,
      );
      this.publisher.start();
    }
    const runsJobs = options.processing && this.definitions.size > 0;
    // This process publishes none of its events (those of the jobs it runs, or only the `added` of those it adds): warn
    // if some process listens for them.
    if (!options.clusterEvents) {
      const watch = () =>
        this.clusterNotice.watchForListeners(() => this.storage(), READER_TTL_MS, CLUSTER_NOTICE_TIMING.recheckMs, runsJobs);
      if (runsJobs) await watch();
      // A process that runs no jobs would publish only the `added` of the jobs it adds: it looks once it has added one,
      // so a dashboard's, a CLI's or an operator's process that never adds pays no read and logs no warning.
      else
        this.listeners.push(
          this.events.events$
            .pipe(
              filter((event) => event.type === 'added'),
              take(1),
            )
            .subscribe(() => void watch()),
        );
    }
    if (!runsJobs) return;
    const now = Date.now();
    await Scheduler.upsert(
      storage,
      await Promise.all(
        this.processors().flatMap(({ queue, settings }) =>
          (settings.schedules ?? []).map(async ({ name, ...schedule }) =>
            toScheduleRecord(queue, name, await checkScheduleData(this.schemaFor(queue), queue, schedule), now),
          ),
        ),
      ),
      now,
    );
    // A processor checks its jobs with the queue's schema, whether its own `@Processor` or a `registerQueue` declared it.
    const processors = this.processors().map((definition) => {
      const schema = this.schemaFor(definition.queue);
      return schema === definition.settings.schema ? definition : { ...definition, settings: { ...definition.settings, schema } };
    });
    const runtime = new ProcessingRuntime(storage, processors, options, this.events, this.logger, this.telemetry, this.recentCompletions);
    await runtime.declareLimits();
    this.runtimeInstance = runtime;
    runtime.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runtimeInstance?.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.clusterNotice.stop();
    await this.beforeApplicationShutdown();
    this.watcher?.close();
    // After the runtime stopped: the last completions are published too.
    await this.publisher?.stop();
    this.listeners.splice(0).forEach((subscription) => subscription.unsubscribe());
    this.events.complete();
    if (this.storagePromise) {
      const storage = await this.storagePromise.catch(() => undefined);
      await storage?.close();
    }
  }
}
