import { Logger } from '@nestjs/common';
import { Observable, Subscription, share } from 'rxjs';
import { QueueEvent } from '../interfaces/queue-event.interface';
import { EventStorage } from '../storage/queue-storage.interface';
import { FailureStreak } from '../utils/failure-streak';
import { nextTurn } from '../utils/next-turn.util';
import { decodeEvents } from './event-codec';

/** How often a reading process renews its heartbeat, which tells publishers that someone listens. */
export const READER_HEARTBEAT_MS = 5000;

/** Publishers keep publishing this long after the last heartbeat they saw. */
export const READER_TTL_MS = 3 * READER_HEARTBEAT_MS;

/** Most stored batches one read returns; a full read is followed by another at once. */
const READ_BATCH = 100;

/**
 * Events other processes published (`clusterEvents`), read from the shared event log. ONE reader per process
 * however many subscribe (the stream is shared): while anything subscribes, it reads once per `pollInterval`, one
 * statement for every queue and listener, plus a heartbeat write every `READER_HEARTBEAT_MS`; with no subscriber it
 * sends nothing. Publishers write only while some process's heartbeat is recent, so a new reader is heard by them
 * within about `pollInterval`: `listening()` resolves once that has passed. Where the database announces published
 * batches (PostgreSQL NOTIFY on the process's one LISTEN connection), the reader reads at once instead of at its
 * next poll; the poll stays as the safety net.
 */
export class ClusterEventFeed {
  private ready?: Promise<void>;
  private subscribed = false;
  private markReady?: () => void;

  /** Remote events, oldest first. */
  readonly events$: Observable<QueueEvent>;

  constructor(
    private readonly storage: () => Promise<EventStorage>,
    private readonly origin: string,
    private readonly pollInterval: number,
    logger: Logger,
  ) {
    this.events$ = new Observable<QueueEvent>((subscriber) => {
      const failures = new FailureStreak(logger, 'Reading cluster events', pollInterval);
      let cursor: string | null = null;
      let lastHeartbeat = -Infinity;
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let reading = false;
      let again = false;
      let hints: Subscription | undefined;
      const wake = (publisher: string | null): void => {
        // Our own batches: the read skips them anyway.
        if (stopped || cursor === null || publisher === this.origin) return;
        // Mid-read: the batch may have committed after that read's snapshot, so read once more when it ends.
        if (reading) {
          again = true;
          return;
        }
        clearTimeout(timer);
        void tick();
      };
      const tick = async (): Promise<void> => {
        reading = true;
        again = false;
        if (failures.canTry()) {
          try {
            const storage = await this.storage();
            if (Date.now() - lastHeartbeat >= READER_HEARTBEAT_MS) {
              lastHeartbeat = Date.now();
              await storage.markEventReader(this.origin, lastHeartbeat);
            }
            let full = true;
            while (full && !stopped) {
              const read = await storage.readEvents(cursor, READ_BATCH, this.origin);
              const starting = cursor === null;
              cursor = read.cursor;
              // Publishers check for readers every pollInterval (and write every flushDelay): past that, they publish.
              if (starting) setTimeout(() => this.markReady?.(), 2 * this.pollInterval + 100);
              for (const batch of read.batches) {
                if (batch.origin === this.origin) continue;
                for (const event of decodeEvents(batch.events, batch.origin)) subscriber.next(event);
              }
              full = read.batches.length === READ_BATCH;
              // A long backlog is read batch after batch: on better-sqlite3, without a turn between reads, in one go.
              if (full) await nextTurn();
            }
            failures.succeeded();
          } catch (error) {
            failures.failed(error);
          }
        }
        reading = false;
        if (stopped) return;
        if (again && cursor !== null) {
          void tick();
          return;
        }
        timer = setTimeout(() => void tick(), cursor === null ? Math.min(this.pollInterval, 100) : this.pollInterval);
      };
      void this.storage()
        .then((storage) => {
          if (!stopped) hints = storage.eventHints$?.subscribe(wake);
        })
        .catch(() => undefined); // the storage failed to open: the ticks report it
      this.ready = new Promise<void>((resolve) => (this.markReady = resolve));
      this.subscribed = true;
      void tick();
      return () => {
        stopped = true;
        this.subscribed = false;
        clearTimeout(timer);
        hints?.unsubscribe();
        this.ready = undefined;
        this.markReady = undefined;
      };
    }).pipe(share());
  }

  /** Whether this process reads right now (then its own publisher need not ask the database whether anyone does). */
  get reading(): boolean {
    return this.subscribed;
  }

  /**
   * Resolves once the reader has its starting point: events published from then on reach current subscribers.
   * Resolves at once when nothing subscribes (there is nothing to wait for).
   */
  listening(): Promise<void> {
    return this.ready ?? Promise.resolve();
  }
}
