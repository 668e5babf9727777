import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { jobCounts } from './support/job-counts';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

const QUEUES = ['alpha', 'beta', 'gamma'];
const JOBS_PER_QUEUE = 1000;
const CONCURRENCY = 4;

/** What the handlers of one queue saw. */
interface QueueRecord {
  /** Handler invocations per job id: exactly-once means every value is 1. */
  runsById: Map<string, number>;
  /** Payload numbers seen, to prove every enqueued payload reached a handler. */
  seen: number[];
  running: number;
  maxRunning: number;
}

describeEachBackend('load: three queues of 1,000 jobs each on one shared poller', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('runs every one of 3 x 1,000 jobs exactly once, never above each queue’s concurrency', async () => {
    const records = new Map<string, QueueRecord>(
      QUEUES.map((queue) => [queue, { runsById: new Map(), seen: [], running: 0, maxRunning: 0 }]),
    );
    const processors = QUEUES.map((queue) =>
      defineProcessor<{ n: number }>(
        queue,
        async (job: Job<{ n: number }>) => {
          const record = records.get(job.queue)!;
          record.runsById.set(job.id, (record.runsById.get(job.id) ?? 0) + 1);
          record.seen.push(job.data.n);
          record.running++;
          record.maxRunning = Math.max(record.maxRunning, record.running);
          // Give the event loop a turn so the other slots of the queue can really run alongside this one.
          await yieldToLoop();
          record.running--;
          return job.data.n;
        },
        { concurrency: CONCURRENCY },
      ),
    );
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100 })],
      providers: processors,
    }).compile();
    await current.app.init();
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);

    // Interleave the queues' inserts so all three are busy at the same time, as in a real app.
    const enqueuedIds = new Map<string, string[]>(QUEUES.map((queue) => [queue, []]));
    for (let start = 0; start < JOBS_PER_QUEUE; start += 250) {
      for (const queue of QUEUES) {
        const jobs = await producer.addBulk(
          queue,
          Array.from({ length: 250 }, (_, i) => ({ data: { n: start + i } })),
        );
        enqueuedIds.get(queue)!.push(...jobs.map((job) => job.id));
      }
    }

    const total = QUEUES.length * JOBS_PER_QUEUE;
    await waitFor(async () => (await admin.getCounts()).completed === total, `all ${total} jobs completed`, 120_000, 50);
    expect(await admin.getCounts()).toEqual(jobCounts({ completed: total }));
    for (const queue of QUEUES) {
      expect(await admin.getCounts(queue)).toEqual(jobCounts({ completed: JOBS_PER_QUEUE }));
    }

    // Close first: a duplicate run still in flight when the counts were read would now be recorded too.
    await current.app.close();
    current.app = undefined;

    const everyPayload = Array.from({ length: JOBS_PER_QUEUE }, (_, i) => i);
    for (const queue of QUEUES) {
      const record = records.get(queue)!;
      expect([...record.runsById.keys()].sort()).toEqual([...enqueuedIds.get(queue)!].sort());
      const duplicates = [...record.runsById].filter(([, runs]) => runs !== 1);
      expect(duplicates).toEqual([]);
      expect([...record.seen].sort((a, b) => a - b)).toEqual(everyPayload);
      expect(record.maxRunning).toBeLessThanOrEqual(CONCURRENCY);
    }
    // A job id is global: no job of one queue was ever handed to another queue's processor.
    const allIds = QUEUES.flatMap((queue) => [...records.get(queue)!.runsById.keys()]);
    expect(new Set(allIds).size).toBe(total);
  });
});
