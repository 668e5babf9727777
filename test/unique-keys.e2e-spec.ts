/**
 * Unique keys: while a job with a key is pending or running in a queue, adding the same key returns that
 * job and writes nothing; the database (a partial unique index), not a read-then-write, decides, so it
 * holds across OS processes racing on one file.
 */
import { writeFileSync } from 'node:fs';
import { Job, Processor, QueueAdmin, QueueProcessor, QueueProducer } from '../lib';
import { ChildApp, readLines, startChildApp } from './support/child-app';
import { deferred, waitFor } from './support/wait-for';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface KeyedData {
  n: number;
  gate?: string;
}

const gates = new Map<string, { promise: Promise<void>; resolve: () => void }>();
const started = new Set<string>();

@Processor('keyed', { concurrency: 2 })
class KeyedProcessor implements QueueProcessor<KeyedData, number> {
  async process(job: Job<KeyedData>): Promise<number> {
    started.add(job.id);
    if (job.data.gate) await gates.get(job.data.gate)?.promise;
    return job.data.n;
  }
}

const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, count) => sum + count, 0);

describeEachBackend('unique keys', (backend) => {
  let children: ChildApp[] = [];
  // Before the app closes (perTestApp's afterEach runs next): a held handler would hold up shutdown.
  afterEach(async () => {
    gates.forEach((gate) => gate.resolve());
    await Promise.all(children.map((child) => child.kill()));
    children = [];
  });
  const current = perTestApp(backend, MIGRATED);
  beforeEach(() => {
    gates.clear();
    started.clear();
  });

  async function openApp(processing: boolean): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    const app = await current.startApp({ module: { pollInterval: 50, processing }, providers: processing ? [KeyedProcessor] : [] });
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  /** Two producer processes that each add `count` jobs one add() at a time, released at the same instant. */
  async function raceTwoProducers(produce: { key?: string; keyPrefix?: string; count: number }): Promise<string[][]> {
    const gateFile = `${current.db.path}.go`;
    const logs = [`${current.db.path}.ids-a`, `${current.db.path}.ids-b`];
    const producers = logs.map((idLog) =>
      startChildApp({
        connection: current.db.options,
        produce: { queue: 'dedupe', single: true, gateFile, idLog, ...produce },
        exitAfterProduce: true,
      }),
    );
    children.push(...producers);
    await Promise.all(producers.map((child) => child.printed('READY')));
    writeFileSync(gateFile, 'go');
    expect(await Promise.all(producers.map((child) => child.exited))).toEqual([0, 0]);
    return logs.map(readLines);
  }

  it('two OS processes adding the same key 100 times each at once create exactly one job; every add returns its id', async () => {
    const [a, b] = await raceTwoProducers({ key: 'the-key', count: 100 });
    expect(a).toHaveLength(100);
    expect(b).toHaveLength(100);
    const ids = new Set([...a, ...b]);
    expect(ids.size).toBe(1);

    const { admin } = await openApp(false);
    const counts = await admin.getCounts('dedupe');
    expect(total(counts)).toBe(1);
    expect(counts.pending).toBe(1);
    expect(await admin.getJob([...ids][0])).toMatchObject({ key: 'the-key', status: 'pending', attempts: 0 });
  });

  it('two OS processes adding the same 100 keys in the same order get the same job for each key, and 100 jobs in all', async () => {
    const [a, b] = await raceTwoProducers({ keyPrefix: 'k', count: 100 });
    expect(a).toHaveLength(100);
    expect(b).toHaveLength(100);
    expect(b).toEqual(a);
    expect(new Set(a).size).toBe(100);
    const { admin } = await openApp(false);
    expect(total(await admin.getCounts('dedupe'))).toBe(100);
    for (let i = 0; i < 100; i += 17) expect(await admin.getJob(a[i])).toMatchObject({ key: `k${i}`, data: { n: i } });
  });

  it('returns the live job (pending or running) for a taken key; once it completed, the key makes a new job', async () => {
    const { producer, admin } = await openApp(true);
    gates.set('hold', deferred<void>());

    const running = await producer.add<KeyedData>('keyed', { n: 1, gate: 'hold' }, { key: 'k' });
    await waitFor(() => started.has(running.id), 'the keyed job is running');
    const again = await producer.add<KeyedData>('keyed', { n: 2 }, { key: 'k' });
    expect(again.id).toBe(running.id);
    expect(again.data).toEqual({ n: 1, gate: 'hold' }); // the existing job, not the new payload
    expect(total(await admin.getCounts('keyed'))).toBe(1);

    const pending = await producer.add<KeyedData>('keyed', { n: 3 }, { key: 'p', delay: 60_000 });
    const pendingAgain = await producer.add<KeyedData>('keyed', { n: 4 }, { key: 'p', delay: 5 });
    expect(pendingAgain.id).toBe(pending.id);
    expect(pendingAgain.runAt).toEqual(pending.runAt);
    expect(await admin.getJob(pending.id)).toMatchObject({ status: 'pending', data: { n: 3 } });
    // Keys are per queue.
    const elsewhere = await producer.add<KeyedData>('keyed-other', { n: 5 }, { key: 'k' });
    expect(elsewhere.id).not.toBe(running.id);
    expect(total(await admin.getCounts())).toBe(3);

    gates.get('hold')!.resolve();
    await waitFor(async () => (await admin.getJob(running.id))?.status === 'completed', 'the keyed job completed');
    const fresh = await producer.add<KeyedData>('keyed', { n: 6 }, { key: 'k' });
    expect(fresh.id).not.toBe(running.id);
    expect(fresh.data).toEqual({ n: 6 });
    await waitFor(async () => (await admin.getJob(fresh.id))?.status === 'completed', 'the new keyed job completed');
    expect(await admin.getJob(running.id)).toMatchObject({ status: 'completed', key: 'k', result: 1 });
    expect(await admin.getJob(fresh.id)).toMatchObject({ status: 'completed', key: 'k', result: 6 });
  });

  it('addBulk: duplicate keys inside one batch, and keys already taken, map to one job each', async () => {
    const { producer, admin } = await openApp(false);
    const taken = await producer.add<KeyedData>('bulk', { n: 0 }, { key: 'taken' });
    const jobs = await producer.addBulk<KeyedData>('bulk', [
      { data: { n: 1 }, options: { key: 'b' } },
      { data: { n: 2 }, options: { key: 'b' } },
      { data: { n: 3 } },
      { data: { n: 4 }, options: { key: 'taken' } },
      { data: { n: 5 }, options: { key: 'c' } },
      { data: { n: 6 }, options: { key: 'b' } },
      { data: { n: 7 } },
    ]);
    expect(jobs).toHaveLength(7);
    const [b1, b2, plain1, takenAgain, c, b3, plain2] = jobs;
    expect(b2.id).toBe(b1.id);
    expect(b3.id).toBe(b1.id);
    expect([b2.data, b3.data]).toEqual([{ n: 1 }, { n: 1 }]);
    expect(takenAgain.id).toBe(taken.id);
    expect(takenAgain.data).toEqual({ n: 0 });
    expect(new Set([b1.id, plain1.id, taken.id, c.id, plain2.id]).size).toBe(5);
    expect([plain1.data, c.data, plain2.data]).toEqual([{ n: 3 }, { n: 5 }, { n: 7 }]);
    expect(total(await admin.getCounts('bulk'))).toBe(5);
    expect(await admin.getJob(b1.id)).toMatchObject({ key: 'b', data: { n: 1 } });
  });
});
