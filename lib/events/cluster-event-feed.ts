import { Logger } from '@nestjs/common';
import { Observable, share } from 'rxjs';
import { QueueEvent } from '../interfaces/queue-event.interface';
import { QueueStorage } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';
import { decodeEvents } from './event-codec';

/** Most stored batches one read returns; a full read is followed by another at once. */
const READ_BATCH = 100;

/**
 * Events other processes published (`clusterEvents`), read from the shared event log. ONE reader per process
 * however many subscribe (the stream is shared): while anything subscribes, it reads once per `pollInterval`, one
 * statement for every queue and listener; with no subscriber it sends nothing. A subscriber sees the events
 * published after the reader took its starting point (`listening()`).
 */
export class ClusterEventFeed {
  private ready?: Promise<void>;
  private markReady?: () => void;

  /** Remote events, oldest first. */
  readonly events$: Observable<QueueEvent>;

  constructor(
    private readonly storage: () => Promise<QueueStorage>,
    private readonly origin: string,
    private readonly pollInterval: number,
    logger: Logger,
  ) {
    this.events$ = new Observable<QueueEvent>((subscriber) => {
      const failures = new FailureStreak(logger, 'Reading cluster events', pollInterval);
      let cursor: string | null = null;
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const tick = async (): Promise<void> => {
        if (failures.canTry()) {
          try {
            const storage = await this.storage();
            let full = true;
            while (full && !stopped) {
              const read = await storage.readEvents(cursor, READ_BATCH);
              const starting = cursor === null;
              cursor = read.cursor;
              if (starting) this.markReady?.();
              for (const batch of read.batches) {
                if (batch.origin === this.origin) continue;
                for (const event of decodeEvents(batch.events, batch.origin)) subscriber.next(event);
              }
              full = read.batches.length === READ_BATCH;
            }
            failures.succeeded();
          } catch (error) {
            failures.failed(error);
          }
        }
        if (!stopped) timer = setTimeout(() => void tick(), cursor === null ? Math.min(this.pollInterval, 100) : this.pollInterval);
      };
      this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
      void tick();
      return () => {
        stopped = true;
        clearTimeout(timer);
        this.ready = undefined;
        this.markReady = undefined;
      };
    }).pipe(share());
  }

  /**
   * Resolves once the reader has its starting point: events published from then on reach current subscribers.
   * Resolves at once when nothing subscribes (there is nothing to wait for).
   */
  listening(): Promise<void> {
    return this.ready ?? Promise.resolve();
  }
}
