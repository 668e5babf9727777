/**
 * Group commit of concurrent single adds: adds made while another add's insert is in flight are written together
 * in one statement, and each still gets exactly what it would have got alone (its own job, the live job of its
 * key, its own validation error), with ids in call order.
 */
import { InvalidJobDataError, InvalidJobOptionsError, QueueAdmin, QueueProducer } from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { NewJobRecord } from '../lib/storage/queue-storage.interface';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

interface Payload {
  n: number;
}

describeEachBackend('group commit of concurrent adds', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  /** A producer-only app, and every enqueue statement its storage receives (batch sizes, in order). */
  async function openApp(): Promise<{ producer: QueueProducer; admin: QueueAdmin; statements: number[][] }> {
    const app = await current.startApp({ module: { processing: false } });
    const storage = await app.get(QueueRuntime).storage();
    const statements: number[][] = [];
    const enqueue = storage.enqueue.bind(storage);
    storage.enqueue = (queue: string, jobs: NewJobRecord[], now: number) => {
      statements.push(jobs.map((job) => (JSON.parse(job.data) as Payload).n));
      return enqueue(queue, jobs, now);
    };
    return { producer: app.get(QueueProducer), admin: app.get(QueueAdmin), statements };
  }

  it('300 adds in flight at once: a few statements, the first alone, every add its own job, ids in call order', async () => {
    const { producer, admin, statements } = await openApp();
    const jobs = await Promise.all(Array.from({ length: 300 }, (_, n) => producer.add<Payload>('burst', { n })));

    expect(jobs.map((job) => job.data.n)).toEqual(Array.from({ length: 300 }, (_, n) => n));
    const ids = jobs.map((job) => BigInt(job.id));
    expect(new Set(ids).size).toBe(300);
    // SQLite has one writer and one insert in flight per queue: ids follow call order. PostgreSQL keeps two
    // inserts in flight on its pool, and concurrent adds there never had an id order (each took a connection).
    if (backend.kind === 'sqlite') expect(ids.every((id, index) => index === 0 || id > ids[index - 1])).toBe(true);
    // The first add goes at once, alone; the others, made while it was in flight, go together.
    expect(statements[0]).toEqual([0]);
    expect(statements.length).toBeLessThanOrEqual(backend.kind === 'sqlite' ? 3 : 10);
    expect(statements.flat()).toEqual(Array.from({ length: 300 }, (_, n) => n));
    expect((await admin.getCounts('burst')).pending).toBe(300);
    for (const index of [0, 1, 150, 299]) {
      expect(await admin.getJob(jobs[index].id)).toMatchObject({ queue: 'burst', status: 'pending', data: { n: index } });
    }
  });

  it('an add alone is one statement of one row, also right after a group', async () => {
    const { producer, statements } = await openApp();
    await Promise.all([1, 2, 3].map((n) => producer.add<Payload>('solo', { n })));
    statements.length = 0;
    const job = await producer.add<Payload>('solo', { n: 4 });
    expect(statements).toEqual([[4]]);
    expect(job.data).toEqual({ n: 4 });
  });

  it('keys in one group: one add of a key makes the job (the first, on SQLite), the others (and a key already taken) get it', async () => {
    const { producer, admin, statements } = await openApp();
    const taken = await producer.add<Payload>('keyed', { n: -1 }, { key: 'taken' });
    statements.length = 0;
    const adds = Array.from({ length: 40 }, (_, n) => producer.add<Payload>('keyed', { n }, { key: n % 10 === 9 ? 'taken' : `k${n % 4}` }));
    const jobs = await Promise.all(adds);

    expect(statements.length).toBeLessThan(40);
    const firstOfKey = new Map<string, string>();
    jobs.forEach((job, n) => {
      const key = n % 10 === 9 ? 'taken' : `k${n % 4}`;
      if (key === 'taken') {
        expect(job.id).toBe(taken.id);
        expect(job.data).toEqual({ n: -1 });
        return;
      }
      if (!firstOfKey.has(key)) {
        firstOfKey.set(key, job.id);
        // SQLite: the first add of the key made it. PostgreSQL: one of them did (two inserts race on the pool).
        if (backend.kind === 'sqlite') expect(job.data).toEqual({ n });
        else expect(job.data.n % 4).toBe(n % 4);
      }
      expect(job.id).toBe(firstOfKey.get(key));
      expect(job.key).toBe(key);
    });
    const counts = await admin.getCounts('keyed');
    expect(counts.pending).toBe(5); // taken, k0..k3
  });

  it('a bad add among concurrent adds fails alone with its own typed error; the others are written', async () => {
    const { producer, admin } = await openApp();
    const outcomes = await Promise.allSettled([
      producer.add<Payload>('mixed', { n: 0 }),
      producer.add<Payload>('mixed', { n: 1 }),
      producer.add('mixed', { amount: 10n }),
      producer.add<Payload>('mixed', { n: 3 }, { delay: -5 }),
      producer.add<Payload>('mixed', { n: 4 }),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidJobDataError);
    expect((outcomes[3] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidJobOptionsError);
    const written = await admin.getJobs<Payload>('mixed', { status: 'pending' });
    expect(written.map((job) => job.data.n).sort()).toEqual([0, 1, 4]);
  });

  it('adds to different queues at once: each queue gets its own rows (in call order within the queue on SQLite)', async () => {
    const { producer, admin } = await openApp();
    const queues = ['qa', 'qb', 'qc'];
    const jobs = await Promise.all(Array.from({ length: 90 }, (_, n) => producer.add<Payload>(queues[n % 3], { n })));
    jobs.forEach((job, n) => {
      expect(job.queue).toBe(queues[n % 3]);
      expect(job.data).toEqual({ n });
    });
    for (const queue of queues) {
      const own = jobs.filter((job) => job.queue === queue).map((job) => BigInt(job.id));
      if (backend.kind === 'sqlite') expect(own.every((id, index) => index === 0 || id > own[index - 1])).toBe(true);
      expect((await admin.getCounts(queue)).pending).toBe(30);
    }
  });
});
