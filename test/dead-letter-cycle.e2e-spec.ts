/**
 * Queues that dead-letter to each other, declared by two apps on one database: A to B in one, B to A in the other.
 * A poison job fails on A, its dead letter fails on B, and there it stops: a dead letter is never dead-lettered again,
 * so no further row appears, where the copies used to go round for ever.
 */
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer } from '../lib';
import { waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

const runs: { queue: string; id: string }[] = [];

function poison(job: Job): Promise<never> {
  runs.push({ queue: job.queue, id: job.id });
  return Promise.reject(new Error(`poison on ${job.queue}`));
}

@Processor('cycle-a', { maxAttempts: 1, deadLetter: 'cycle-b' })
class CycleAProcessor implements QueueProcessor {
  process(job: Job): Promise<never> {
    return poison(job);
  }
}

@Processor('cycle-b', { maxAttempts: 1, deadLetter: 'cycle-a' })
class CycleBProcessor implements QueueProcessor {
  process(job: Job): Promise<never> {
    return poison(job);
  }
}

@Processor('cycle-probe')
class ProbeProcessor implements QueueProcessor {
  async process(): Promise<string> {
    return 'seen';
  }
}

describeEachBackend('dead-letter cycle', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  beforeEach(() => (runs.length = 0));

  it('A dead-letters to B and B to A (two apps): the dead letter fails on B for good and is not copied further', async () => {
    const first = await current.startApp({ module: { pollInterval: 50 }, providers: [CycleAProcessor] });
    const second = await current.startApp({ module: { pollInterval: 50 }, providers: [CycleBProcessor, ProbeProcessor] });
    const admin = second.get(QueueAdmin);
    const producer = first.get(QueueProducer);

    const job = await producer.add('cycle-a', { poison: true });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'failed', 'the job failed on A');
    await waitFor(async () => (await admin.getCounts('cycle-b')).failed === 1, 'its dead letter failed on B');
    // Nothing due or running anywhere, then one more claim round of both apps' poller (the probe ran after it).
    await admin.waitUntilIdle(undefined, { timeout: 10_000 });
    const probe = await producer.add('cycle-probe', {});
    await waitFor(async () => (await admin.getJob(probe.id))?.status === 'completed', 'a later claim round ran');
    await admin.waitUntilIdle(undefined, { timeout: 10_000 });

    expect(await admin.getCounts('cycle-a')).toMatchObject({ pending: 0, running: 0, failed: 1 });
    expect(await admin.getCounts('cycle-b')).toMatchObject({ pending: 0, running: 0, failed: 1 });
    const [letter] = await admin.getJobs('cycle-b', { status: 'failed' });
    expect(letter.deadLetter).toMatchObject({ queue: 'cycle-a', jobId: job.id });
    expect(runs.map((run) => run.queue)).toEqual(['cycle-a', 'cycle-b']);
  });
});
