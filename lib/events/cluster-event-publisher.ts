import { Logger } from '@nestjs/common';
import { Subscription, filter } from 'rxjs';
import { EventStorage } from '../storage/queue-storage.interface';
import { QueueEvent } from '../interfaces/queue-event.interface';
import { encodeEvents } from './event-codec';
import { JobEventBus } from './job-event-bus';
import { FailureStreak } from '../utils/failure-streak';
import { isTransientStorageError } from '../errors/codes/transient-error';

/** Most events one stored batch (one row) carries. */
const WRITE_BATCH = 1000;
/**
 * Most events held while the database is unreachable (a write failing with an error a retry can get past keeps its
 * events for the next try); the oldest are dropped past it: events are notifications, the jobs are in the table.
 */
const MAX_BUFFERED = 10_000;

/** Settings of the publisher. */
export interface ClusterEventPublisherSettings {
  /** This process's instance id, stored with each event so readers skip their own. */
  origin: string;
  /** Events older than this (ms) are pruned. */
  retention: number;
  /** At most one prune per this many ms, and only after writes: an idle process sends nothing. */
  pruneInterval: number;
  /**
   * Events wait up to this many ms to be written together. Readers poll every `pollInterval` anyway, so a short
   * wait adds little latency, while writing once per turn of the event loop put one more statement beside nearly
   * every claim and completion (halving throughput on SQLite in the A/B bench).
   */
  flushDelay: number;
  /** How often to ask whether any process reads (one statement), in ms: the module's pollInterval. */
  checkInterval: number;
  /** Readers whose last heartbeat is older than this (ms) no longer count. */
  readerTtl: number;
  /** True while this process reads itself: no need to ask the database. */
  readingHere(): boolean;
}

/**
 * Copies this process's job events to the shared event log (`clusterEvents`). Events of up to `flushDelay` ms
 * go out as one row, after the outcome write that caused them (the local bus emits after it), and writes run one
 * at a time, so a burst of completions costs one statement per batch, not per job. Nothing here can throw into the
 * engine. A write that fails with an error a retry can get past (the connection dropped, the database busy) keeps
 * its events and is tried again every `checkInterval`, logged once per outage; any other failed write is logged
 * with its jobs and its events are dropped.
 */
export class ClusterEventPublisher {
  /** Events not yet written; encoded a batch at a time when written (cheaper than one at a time). */
  private buffer: QueueEvent[] = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  private subscription?: Subscription;
  private lastPrune = Date.now();
  private wroteSincePrune = false;
  private checkTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private stopped = false;
  private readonly checkFailures: FailureStreak;
  private readonly writeFailures: FailureStreak;
  private readonly pruneFailures: FailureStreak;

  constructor(
    private readonly bus: JobEventBus,
    private readonly storage: () => Promise<EventStorage>,
    private readonly settings: ClusterEventPublisherSettings,
    private readonly logger: Logger,
  ) {
    // Each loop logs the first failure of an outage and its end, not every try (the check runs every pollInterval).
    this.checkFailures = new FailureStreak(logger, 'Cluster events: checking for processes that listen', settings.checkInterval, false);
    this.writeFailures = new FailureStreak(logger, 'Cluster events: publishing events', settings.checkInterval, false);
    this.pruneFailures = new FailureStreak(logger, 'Cluster events: pruning old events', settings.pruneInterval, false);
  }

  /**
   * Starts watching for readers: events are copied only while some process reads them (subscribing to the bus
   * makes the engine build events, the main cost of publishing). One statement per `checkInterval` asks, none
   * while this process reads itself.
   */
  start(): void {
    const check = async (): Promise<void> => {
      let readers = this.settings.readingHere();
      if (!readers) {
        try {
          readers = await (await this.storage()).hasEventReaders(Date.now() - this.settings.readerTtl);
          this.checkFailures.succeeded();
        } catch (error) {
          // Unknown: keep the current state until the next check.
          this.checkFailures.failed(error);
          readers = this.subscription !== undefined;
        }
      }
      if (this.stopped) return;
      if (readers) this.publish();
      else this.pause();
      this.checkTimer = setTimeout(() => void check(), this.settings.checkInterval);
      this.checkTimer.unref();
    };
    void check();
  }

  private pause(): void {
    this.subscription?.unsubscribe();
    this.subscription = undefined;
  }

  private publish(): void {
    this.subscription ??= this.bus.events$.pipe(filter((event) => event.origin === undefined)).subscribe((event) => {
      this.buffer.push(event);
      if (this.buffer.length > MAX_BUFFERED) {
        const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
        this.logger.warn(`Cluster events: dropped ${dropped.length} unpublished events (the database is not keeping up, or unreachable)`);
      }
      this.schedule();
    });
  }

  /** Stops copying and writes what is buffered. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.checkTimer);
    clearTimeout(this.retryTimer);
    this.pause();
    await this.flush();
  }

  /** Resolves once every event emitted so far is written (or its write failed). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.writeAll());
    return this.writing;
  }

  private schedule(): void {
    // While a write waits to be tried again, new events join it then.
    if (this.scheduled || this.retryTimer) return;
    this.scheduled = true;
    setTimeout(() => {
      this.scheduled = false;
      void this.flush();
    }, this.settings.flushDelay).unref();
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, WRITE_BATCH);
      try {
        await (await this.storage()).appendEvents({ origin: this.settings.origin, createdAt: Date.now(), events: encodeEvents(batch) });
        this.wroteSincePrune = true;
        this.writeFailures.succeeded();
      } catch (error) {
        if (isTransientStorageError(error) && !this.stopped) {
          // Kept, in order, ahead of the events emitted since; the buffer's bound still applies.
          this.buffer.unshift(...batch);
          const excess = this.buffer.length - MAX_BUFFERED;
          if (excess > 0) {
            this.buffer.splice(0, excess);
            this.logger.warn(`Cluster events: dropped ${excess} unpublished events (the database is not keeping up, or unreachable)`);
          }
          this.writeFailures.failed(error);
          // One retry pending at a time (a flush asked for meanwhile, by stop() or a waiter, may have failed too).
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => {
            this.retryTimer = undefined;
            void this.flush();
          }, this.settings.checkInterval);
          this.retryTimer.unref();
          return;
        }
        const jobs = [...new Set(batch.map((event) => `${event.queue}/${event.jobId}`))].slice(0, 10).join(', ');
        this.logger.error(`Cluster events: publishing ${batch.length} events failed (jobs ${jobs}…); they are lost: ${String(error)}`);
      }
    }
    await this.pruneIfDue();
  }

  private async pruneIfDue(): Promise<void> {
    const now = Date.now();
    if (!this.wroteSincePrune || now - this.lastPrune < this.settings.pruneInterval) return;
    this.lastPrune = now;
    this.wroteSincePrune = false;
    try {
      await (await this.storage()).pruneEvents(now - this.settings.retention);
      this.pruneFailures.succeeded();
    } catch (error) {
      // Tried again after the next writes; old events only take room meanwhile.
      this.pruneFailures.failed(error);
    }
  }
}
