/**
 * The publisher of cluster events against a database that fails: a write that a retry can get past (the connection
 * dropped) keeps its events and is tried again, logged once for the outage and once when it ends; any other failed
 * write drops its batch, naming its jobs; a failing readers' check is logged once per outage, not at every check.
 */
import { Logger } from '@nestjs/common';
import { ClusterEventPublisher } from '../lib/events/cluster-event-publisher';
import { decodeEvents } from '../lib/events/event-codec';
import { JobEventBus, UnstampedEvent } from '../lib/events/job-event-bus';
import { EventStorage } from '../lib/storage/queue-storage.interface';
import { StoredEventBatch } from '../lib/storage/storage-records';
import { waitFor } from './support/wait-for';

const active = (jobId: string): UnstampedEvent => ({ type: 'active', queue: 'q', jobId, attempt: 1 });

class LinesLogger extends Logger {
  readonly lines: string[] = [];
  override error(message: unknown): void {
    this.lines.push(`error ${String(message)}`);
  }
  override warn(message: unknown): void {
    this.lines.push(`warn ${String(message)}`);
  }
  override log(message: unknown): void {
    this.lines.push(`log ${String(message)}`);
  }
}

/** A storage whose writes and checks fail with the queued errors first, then work. */
function failingStorage(writeErrors: Error[], checkErrors: Error[] = []) {
  const written: StoredEventBatch[] = [];
  const storage: Pick<EventStorage, 'appendEvents' | 'pruneEvents' | 'hasEventReaders'> = {
    appendEvents: async (batch) => {
      const error = writeErrors.shift();
      if (error) throw error;
      written.push(batch);
    },
    pruneEvents: async () => 0,
    hasEventReaders: async () => {
      const error = checkErrors.shift();
      if (error) throw error;
      return true;
    },
  };
  const jobIds = () => written.flatMap((batch) => decodeEvents(batch.events, 'elsewhere').map((event) => event.jobId));
  return { storage: storage as EventStorage, jobIds };
}

function publisherOf(storage: EventStorage, logger: Logger, readingHere = true): { bus: JobEventBus; publisher: ClusterEventPublisher } {
  const bus = new JobEventBus();
  const publisher = new ClusterEventPublisher(
    bus,
    async () => storage,
    {
      origin: 'here',
      retention: 60_000,
      pruneInterval: 60_000,
      flushDelay: 1,
      checkInterval: 5,
      readerTtl: 60_000,
      readingHere: () => readingHere,
    },
    logger,
  );
  return { bus, publisher };
}

describe('ClusterEventPublisher against a failing database', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  /** A started publisher on `storage` (stopped after the test), once it listens to its bus when `readingHere`. */
  async function started(storage: EventStorage, logger: Logger, readingHere = true): Promise<JobEventBus> {
    const { bus, publisher } = publisherOf(storage, logger, readingHere);
    publisher.start();
    stop = () => publisher.stop();
    if (readingHere) await waitFor(() => bus.observed, 'the publisher listening');
    return bus;
  }

  it('keeps the events of a write that failed for a dropped connection and publishes them, in order, once it works', async () => {
    const dropped = () => new Error('Connection terminated unexpectedly');
    const { storage, jobIds } = failingStorage([dropped(), dropped(), dropped()]);
    const logger = new LinesLogger();
    const bus = await started(storage, logger);
    bus.emit(active('1'));
    bus.emit(active('2'));
    await waitFor(() => logger.lines.length > 0, 'the first failure logged');
    bus.emit(active('3'));
    await waitFor(() => jobIds().length === 3, 'every event published');
    expect(jobIds()).toEqual(['1', '2', '3']);
    expect(logger.lines).toEqual([
      expect.stringMatching(/^error Cluster events: publishing events failed; retrying every 5 ms.*Connection terminated/),
      expect.stringMatching(/^log Cluster events: publishing events works again, after 3 failed tries/),
    ]);
  });

  it('drops the batch of a write that fails for good, naming its jobs, and publishes the next ones', async () => {
    const { storage, jobIds } = failingStorage([new Error('value too long for type character varying(10)')]);
    const logger = new LinesLogger();
    const bus = await started(storage, logger);
    bus.emit(active('1'));
    await waitFor(() => logger.lines.length > 0, 'the failure logged');
    bus.emit(active('2'));
    await waitFor(() => jobIds().length === 1, 'the next event published');
    expect(jobIds()).toEqual(['2']);
    expect(logger.lines).toEqual([
      expect.stringMatching(/^error Cluster events: publishing 1 events failed \(jobs q\/1…\); they are lost/),
    ]);
  });

  it('logs a failing check for readers once per outage, not at every check, and its end', async () => {
    const dropped = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const checks = [dropped(), dropped(), dropped(), dropped()];
    const { storage } = failingStorage([], checks);
    const logger = new LinesLogger();
    await started(storage, logger, false);
    await waitFor(() => logger.lines.length === 2, 'the outage and its end logged');
    expect(checks).toEqual([]);
    expect(logger.lines).toEqual([
      expect.stringMatching(/^error Cluster events: checking for processes that listen failed; .*ECONNRESET/),
      expect.stringMatching(/^log Cluster events: checking for processes that listen works again, after 4 failed tries/),
    ]);
  });
});
