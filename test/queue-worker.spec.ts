import { Logger } from '@nestjs/common';
import { Subject } from 'rxjs';
import { JobEventBus } from '../lib/events/job-event-bus';
import { QueueEvent } from '../lib/interfaces/queue-event.interface';
import { AttemptRef, JobRecord, QueueStorage } from '../lib/storage/queue-storage.interface';
import { CompletionBatcher } from '../lib/worker/completion-batcher';
import { QueueWorker } from '../lib/worker/queue-worker';

/** A completion write the test lands (or fails) by hand. */
interface HeldWrite {
  ref: AttemptRef;
  land(owned?: boolean): void;
}

function record(id: string): JobRecord {
  const now = Date.now();
  return {
    id, queue: 'q', status: 'running', data: '{}', priority: 0, runAt: now, attempts: 1, maxAttempts: 3, backoff: null,
    timeout: null, key: null, lockedBy: 'w', leaseUntil: now + 30_000, result: null, error: null, progress: null,
    createdAt: now, startedAt: now, finishedAt: null, updatedAt: now,
  };
}

/**
 * One worker of concurrency 1 with a stand-in batcher: each completion is "queued" at once (its `onQueued` runs)
 * and written only when the test lands it. That is the order a connection pool allows, where a claim can come
 * back before the write it queued behind.
 */
function setUp() {
  const writes: HeldWrite[] = [];
  const completions = {
    complete(ref: AttemptRef, _result: string | null, onQueued?: () => void): Promise<boolean> {
      return new Promise<boolean>((resolve) => {
        onQueued?.();
        writes.push({ ref, land: (owned = true) => resolve(owned) });
      });
    },
  } as unknown as CompletionBatcher;
  const started: string[] = [];
  const events = new JobEventBus();
  const heard: string[] = [];
  events.events$.subscribe((event: QueueEvent) => heard.push(`${event.type} ${event.jobId}`));
  let slotsOffered = 0;
  const worker = new QueueWorker(
    'q',
    'TestProcessor',
    {
      async process(job) {
        started.push(job.id);
        return undefined;
      },
    },
    { concurrency: 1 },
    {
      storage: {} as QueueStorage,
      completions,
      workerId: 'w',
      defaultBackoff: { type: 'fixed', delay: 1 },
      events,
      logger: new Logger('test'),
      onSlotFreed: () => slotsOffered++,
      onRetryScheduled: () => undefined,
      onFinished: () => undefined,
    },
  );
  const jobs$ = new Subject<JobRecord>();
  worker.attach(jobs$);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { worker, jobs$, writes, started, heard, settle, slotsOffered: () => slotsOffered };
}

describe('QueueWorker slots (unit): a slot is offered once its outcome is queued, and reused once it is written', () => {
  it('offers the slot of a job whose completion is queued, but starts the next job only after that write lands', async () => {
    const { worker, jobs$, writes, started, heard, settle, slotsOffered } = setUp();
    jobs$.next(record('1'));
    await settle();
    expect(started).toEqual(['1']);
    expect(writes.map((write) => write.ref.id)).toEqual(['1']);
    // Queued, not written: the poller may claim for this slot already.
    expect(slotsOffered()).toBe(1);
    expect(worker.freeSlots).toBe(1);

    // The claim came back before the write landed: the job waits, and the slot is not offered twice.
    jobs$.next(record('2'));
    await settle();
    expect(started).toEqual(['1']);
    expect(worker.freeSlots).toBe(0);
    expect(worker.heldAttempts()).toEqual([{ id: '1', attempt: 1 }, { id: '2', attempt: 1 }]);

    writes[0].land();
    await settle();
    expect(started).toEqual(['1', '2']);
    // Job 1 was saved and announced before job 2 began.
    expect(heard).toEqual(['active 1', 'completed 1', 'active 2']);
    writes[1].land();
    await worker.whenIdle();
    expect(worker.heldAttempts()).toEqual([]);
    expect(worker.freeSlots).toBe(1);
  });

  it('hands back a job still waiting for its slot at shutdown instead of starting it', async () => {
    const { worker, jobs$, writes, started, settle } = setUp();
    jobs$.next(record('1'));
    await settle();
    jobs$.next(record('2'));
    worker.stopAccepting();
    expect(worker.heldAttempts()).toEqual([{ id: '1', attempt: 1 }, { id: '2', attempt: 1 }]);
    expect(worker.takeUnstarted()).toEqual([{ id: '2', attempt: 1 }]);
    writes[0].land();
    await worker.whenIdle();
    await settle();
    expect(started).toEqual(['1']);
    expect(worker.freeSlots).toBe(0);
  });

  it('drops a waiting job that an operator cancels, with a cancelled event, and never starts it', async () => {
    const { worker, jobs$, writes, started, heard, settle } = setUp();
    jobs$.next(record('1'));
    await settle();
    jobs$.next(record('2'));
    expect(worker.cancelRunning('2')).toBe(true);
    expect(worker.cancelRunning('2')).toBe(false);
    writes[0].land();
    await worker.whenIdle();
    await settle();
    expect(started).toEqual(['1']);
    expect(heard).toEqual(['active 1', 'cancelled 2', 'completed 1']);
    expect(worker.heldAttempts()).toEqual([]);
  });
});
