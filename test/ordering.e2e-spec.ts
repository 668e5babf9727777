import { TestingModule } from '@nestjs/testing';
import { Job, JobOptions, QueueAdmin, QueueProducer } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface Labelled {
  label: string;
}

/** One handler start: which job, when, and the moment it was due. */
interface Start {
  label: string;
  startedAt: number;
  runAt: number;
}

describeEachBackend('ordering: priority, then run time, then insertion; delays are honoured', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  async function startApp(options: { processing: boolean; concurrency?: number; starts?: Start[] }): Promise<TestingModule> {
    const starts = options.starts ?? [];
    const LabelProcessor = defineProcessor<Labelled>(
      'ordered',
      async (job: Job<Labelled>) => {
        starts.push({ label: job.data.label, startedAt: Date.now(), runAt: job.runAt.getTime() });
      },
      { concurrency: options.concurrency ?? 1 },
    );
    const app = await current.startApp({ module: { pollInterval: 50, processing: options.processing }, providers: [LabelProcessor] });
    return app;
  }

  /**
   * Enqueues from a producer-only app (`processing: false`), so every job waits in the file before any worker
   * looks, then waits until all of them are due.
   */
  async function enqueueBeforeAnyWorker(items: { data: Labelled; options?: JobOptions }[]): Promise<void> {
    const producerApp = await startApp({ processing: false });
    // One bulk statement: the items share one "now", so equal run times are broken by insertion order alone.
    const jobs = await producerApp.get(QueueProducer).addBulk('ordered', items);
    // Order is only defined among due jobs: wait (on the clock, not a sleep) until the delayed ones are due.
    const latest = Math.max(...jobs.map((job) => job.runAt.getTime()));
    await waitFor(() => Date.now() > latest, 'every enqueued job is due');
  }

  it('with concurrency 1, runs due jobs by priority (high first), then run time, then insertion order', async () => {
    await enqueueBeforeAnyWorker([
      { data: { label: 'p1 due-last' }, options: { priority: 1, delay: 120 } },
      { data: { label: 'p1 first-inserted' }, options: { priority: 1 } },
      { data: { label: 'p0 first-inserted' } },
      { data: { label: 'p9 first-inserted' }, options: { priority: 9 } },
      { data: { label: 'p1 due-later' }, options: { priority: 1, delay: 60 } },
      { data: { label: 'p0 second-inserted' }, options: { priority: 0 } },
      { data: { label: 'p9 second-inserted' }, options: { priority: 9 } },
      { data: { label: 'p1 second-inserted' }, options: { priority: 1 } },
      { data: { label: 'p0 due-later' }, options: { delay: 60 } },
    ]);
    const starts: Start[] = [];
    const worker = await startApp({ processing: true, concurrency: 1, starts });
    const admin = worker.get(QueueAdmin);
    await waitFor(async () => (await admin.getCounts('ordered')).completed === 9, 'all 9 jobs completed');

    expect(starts.map((start) => start.label)).toEqual([
      'p9 first-inserted',
      'p9 second-inserted',
      'p1 first-inserted',
      'p1 second-inserted',
      'p1 due-later',
      'p1 due-last',
      'p0 first-inserted',
      'p0 second-inserted',
      'p0 due-later',
    ]);
  });

  it('keeps priority order inside one claimed batch (RETURNING gives rows in no defined order)', async () => {
    // Ids ascend in the opposite order of priority, so a batch handed out in row order would start backwards.
    await enqueueBeforeAnyWorker(Array.from({ length: 8 }, (_, i) => ({ data: { label: `p${i}` }, options: { priority: i } })));
    const starts: Start[] = [];
    // Eight free slots and eight due jobs: the first claim takes them all in one statement.
    const worker = await startApp({ processing: true, concurrency: 8, starts });
    const admin = worker.get(QueueAdmin);
    await waitFor(async () => (await admin.getCounts('ordered')).completed === 8, 'all 8 jobs completed');

    expect(starts.map((start) => start.label)).toEqual(['p7', 'p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0']);
  });

  it('does not start a job before its delay or runAt, and does start it after', async () => {
    const starts: Start[] = [];
    const worker = await startApp({ processing: true, concurrency: 3, starts });
    const producer = worker.get(QueueProducer);
    const admin = worker.get(QueueAdmin);

    const beforeDelayed = Date.now();
    const delayed = await producer.add('ordered', { label: 'delay 600' }, { delay: 600 });
    const runAt = new Date(Date.now() + 250);
    const scheduled = await producer.add('ordered', { label: 'runAt +250' }, { runAt });
    const immediate = await producer.add('ordered', { label: 'now' });
    expect(delayed.runAt.getTime()).toBeGreaterThanOrEqual(beforeDelayed + 600);
    expect(scheduled.runAt.getTime()).toBe(runAt.getTime());

    await waitFor(async () => (await admin.getCounts('ordered')).completed === 3, 'all 3 jobs completed', 10_000);

    // The job enqueued last but due first ran first: the delayed ones did not hold it up.
    expect(starts.map((start) => start.label)).toEqual(['now', 'runAt +250', 'delay 600']);
    for (const start of starts) expect(start.startedAt).toBeGreaterThanOrEqual(start.runAt);
    const startOf = (label: string) => starts.find((start) => start.label === label)!;
    expect(startOf('delay 600').runAt).toBe(delayed.runAt.getTime());
    expect(startOf('runAt +250').runAt).toBe(runAt.getTime());
    expect(startOf('now').runAt).toBe(immediate.runAt.getTime());
  });
});
