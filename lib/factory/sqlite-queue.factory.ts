import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { QueueAlreadyRegisteredError } from '../errors/queue-already-registered.error';
import { SqliteQueueModuleOptions } from '../interfaces/sqlite-queue-module-options.interface';
import { LeaseKeeper } from '../poller/lease-keeper';
import { SharedPoller } from '../poller/shared-poller';
import { WorkerPool } from '../poller/worker-pool';
import { SQLITE_QUEUE_MODULE_OPTIONS } from '../sqlite-queue.constants';
import { AttemptRef, QueueStorage } from '../storage/queue-storage.interface';
import { SqliteQueueStorage } from '../storage/sqlite/sqlite-queue.storage';
import { ProcessorDefinition } from '../worker/processor-definition';
import { QueueWorker } from '../worker/queue-worker';
import { ResolvedModuleOptions, resolveModuleOptions } from './resolve-module-options';

/** Raised in handlers' signals when shutdown outlasts `shutdownTimeout`. */
class ShutdownAbortError extends Error {
  override name = 'ShutdownAbortError';
}

/**
 * The process-wide owner of the queue: the storage (and its DataSource), the registered processors, the one
 * shared poller and the lease keeper. It is the single place where start and stop order is decided.
 */
@Injectable()
export class SqliteQueueFactory implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('SqliteQueue');
  private readonly definitions = new Map<string, ProcessorDefinition>();
  private readonly pool = new WorkerPool();
  private resolved?: ResolvedModuleOptions;
  private storagePromise?: Promise<QueueStorage>;
  private poller?: SharedPoller;
  private leaseKeeper?: LeaseKeeper;
  private stopping?: Promise<void>;

  constructor(@Inject(SQLITE_QUEUE_MODULE_OPTIONS) private readonly rawOptions: SqliteQueueModuleOptions) {}

  /** The validated options with defaults; throws `InvalidModuleOptionsError`. */
  get options(): ResolvedModuleOptions {
    this.resolved ??= resolveModuleOptions(this.rawOptions);
    return this.resolved;
  }

  async onModuleInit(): Promise<void> {
    await this.storage();
  }

  /**
   * The initialised storage. Started by whoever needs it first, so a provider that enqueues from its own
   * `onModuleInit` works whatever order Nest runs the hooks in.
   */
  storage(): Promise<QueueStorage> {
    this.storagePromise ??= (async () => {
      const { dataSource, database, driver } = this.options;
      const storage = new SqliteQueueStorage(dataSource ? { dataSource } : { database, driver });
      await storage.initialize();
      return storage;
    })();
    return this.storagePromise;
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

  async onApplicationBootstrap(): Promise<void> {
    const options = this.options;
    if (!options.processing || this.definitions.size === 0) return;
    const storage = await this.storage();
    const poller = new SharedPoller(storage, this.pool, options, this.logger);
    for (const definition of this.definitions.values()) {
      const worker = new QueueWorker(definition.queue, definition.processorName, definition.instance, definition.settings, {
        storage,
        workerId: options.workerId,
        defaultBackoff: options.backoff,
        logger: new Logger(`SqliteQueue:${definition.queue}`),
        onSlotFreed: () => poller.wake(),
      });
      this.pool.register(worker);
      worker.attach(poller.jobs$);
    }
    this.leaseKeeper = new LeaseKeeper(
      storage,
      options,
      this.logger,
      () => this.pool.all().some((worker) => worker.busy),
      () => poller.wake(),
    );
    this.poller = poller;
    this.leaseKeeper.start();
    poller.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping ??= this.stopProcessing();
    await this.stopping;
  }

  async onApplicationShutdown(): Promise<void> {
    await this.beforeApplicationShutdown();
    if (this.storagePromise) {
      const storage = await this.storagePromise.catch(() => undefined);
      await storage?.close();
    }
  }

  /**
   * Graceful stop: claim nothing more, hand back what was claimed but not started, give running jobs
   * `shutdownTimeout` to finish, then abort and hand back the rest. Keeps heartbeating until the end.
   */
  private async stopProcessing(): Promise<void> {
    const poller = this.poller;
    if (!poller) return;
    const storage = await this.storage();
    const workers = this.pool.all();
    workers.forEach((worker) => worker.stopAccepting());
    await poller.stop();
    await this.handBack(storage, workers.flatMap((worker) => worker.takeUnstarted()), 'claimed but not started');
    const finished = await settlesWithin(Promise.all(workers.map((worker) => worker.whenIdle())), this.options.shutdownTimeout);
    if (!finished) {
      const reason = new ShutdownAbortError(`Application shutdown: still running after shutdownTimeout (${this.options.shutdownTimeout} ms)`);
      const refs = workers.flatMap((worker) => worker.abortRunning(reason));
      this.logger.warn(`${refs.length} jobs still running after ${this.options.shutdownTimeout} ms: aborted and handed back`);
      await this.handBack(storage, refs, 'still running at the shutdown deadline');
    }
    await this.leaseKeeper?.stop();
    workers.forEach((worker) => worker.detach());
  }

  private async handBack(storage: QueueStorage, refs: AttemptRef[], what: string): Promise<void> {
    if (refs.length === 0) return;
    try {
      await storage.release(refs, this.options.workerId, Date.now());
    } catch (error) {
      this.logger.error(
        `Handing back ${refs.length} jobs ${what} failed (${refs.map((ref) => ref.id).join(', ')}); ` +
          `their leases will expire and free them: ${String(error)}`,
      );
    }
  }
}

/** True when `work` settles within `ms`; the timer never outlives the call. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
