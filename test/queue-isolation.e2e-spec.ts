import { setTimeout as sleep } from 'node:timers/promises';
import { Test } from '@nestjs/testing';
import { Job, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { jobCounts } from './support/job-counts';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

/**
 * Invariant 3: a queue claims only as many jobs as it has free slots, so a slow or saturated queue never
 * delays another one (the head-of-line blocking of the apalis original, where a full receiver held up
 * delivery to every queue).
 */
describeEachBackend('queue isolation: no head-of-line blocking across queues', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('a fast queue finishes its 100 jobs while a slow queue still works through its backlog', async () => {
    let slowRunning = 0;
    let slowMaxRunning = 0;
    const SlowProcessor = defineProcessor(
      'slow',
      async () => {
        slowRunning++;
        slowMaxRunning = Math.max(slowMaxRunning, slowRunning);
        await sleep(100); // slow work: the backlog of 100 takes ~10 s at concurrency 1
        slowRunning--;
      },
      { concurrency: 1 },
    );
    const fastSeen = new Set<number>();
    const FastProcessor = defineProcessor<{ n: number }>(
      'fast',
      async (job: Job<{ n: number }>) => {
        fastSeen.add(job.data.n);
      },
      { concurrency: 4 },
    );
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100 })],
      providers: [SlowProcessor, FastProcessor],
    }).compile();
    await current.app.init();
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);

    // The slow backlog goes in first: with one FIFO across queues, the fast jobs would queue up behind it.
    await producer.addBulk(
      'slow',
      Array.from({ length: 100 }, (_, n) => ({ data: { n } })),
    );
    await producer.addBulk(
      'fast',
      Array.from({ length: 100 }, (_, n) => ({ data: { n } })),
    );

    await waitFor(async () => (await admin.getCounts('fast')).completed === 100, 'the 100 fast jobs completed');
    const slow = await admin.getCounts('slow');
    // The slow queue is still busy: most of its backlog has not even been claimed yet...
    expect(slow.pending).toBeGreaterThan(0);
    expect(slow.completed).toBeLessThan(100);
    // ...and it never ran more than one job at a time...
    expect(slowMaxRunning).toBe(1);
    // ...nor held more in the database than that slot allows. A slot whose outcome is queued for writing is claimed
    // for again and, under the default `prefetch: 'auto'`, its next job starts before that write lands, so on every
    // backend the finished job can still read running beside the next one for the length of one write.
    expect(slow.running).toBeLessThanOrEqual(2);
    expect(fastSeen.size).toBe(100);
  });

  it('a saturated queue whose handlers never return leaves its backlog unclaimed and does not hold up another queue', async () => {
    const gate = deferred();
    let stuckStarted = 0;
    const StuckProcessor = defineProcessor(
      'stuck',
      async () => {
        stuckStarted++;
        await gate.promise; // held until the test opens the gate
      },
      { concurrency: 2 },
    );
    const FastProcessor = defineProcessor('fast', async () => undefined, { concurrency: 4 });
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 100 })],
      providers: [StuckProcessor, FastProcessor],
    }).compile();
    await current.app.init();
    const producer = current.app.get(QueueProducer);
    const admin = current.app.get(QueueAdmin);

    await producer.addBulk(
      'stuck',
      Array.from({ length: 10 }, (_, n) => ({ data: { n } })),
    );
    await waitFor(() => stuckStarted === 2, 'both slots of the stuck queue busy');
    await producer.addBulk(
      'fast',
      Array.from({ length: 100 }, (_, n) => ({ data: { n } })),
    );

    await waitFor(async () => (await admin.getCounts('fast')).completed === 100, 'the 100 fast jobs completed');
    // Exactly its two slots are claimed; the other 8 stay pending in the database, free for any process.
    expect(await admin.getCounts('stuck')).toEqual(jobCounts({ pending: 8, running: 2 }));
    expect(stuckStarted).toBe(2);

    gate.resolve();
    await waitFor(async () => (await admin.getCounts('stuck')).completed === 10, 'the stuck queue drained once released');
    expect(stuckStarted).toBe(10);
  });
});
