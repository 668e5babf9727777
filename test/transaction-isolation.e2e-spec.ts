import { setTimeout as sleep } from 'node:timers/promises';
import { EnqueuedJob, Job, JobNotFoundError, QueueAdmin, QueueProducer, SqliteQueueModule } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { AppConnection, appConnection, rolledBack } from './support/app-connection';
import { describeEachBackend, itWhen, perTestApp, MIGRATED } from './support/backends';
import { deferred, waitFor } from './support/wait-for';

/**
 * Whether `promise` settled within `ms`: room for a wrong implementation (a write run inside another caller's open
 * transaction) to answer; a right one holds the call until that transaction ends, and there is nothing to wait for.
 */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await Promise.race([promise.catch(() => undefined), sleep(ms)]);
  return settled;
}

/** Runs `work` from a context of its own (another request, say): nothing it sets up leaks into the caller's. */
function inAnotherRequest<T>(work: () => Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => setImmediate(() => work().then(resolve, reject)));
}

/**
 * On SQLite, TypeORM has one connection per DataSource, so whatever runs on a DataSource the
 * module shares with the application while the application has a transaction open runs inside that transaction.
 * Nothing the module acknowledged may be undone by someone else's rollback, and a rolled-back job's handle must never
 * report another job. PostgreSQL (a pool) has neither problem: the same tests show it keeps its behaviour.
 */
describeEachBackend('transactions of a shared DataSource and the calls beside them', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  async function sharedApp(module: { processing?: boolean; providers?: unknown[] } = {}) {
    connection = await appConnection(current);
    const app = await current.startApp({
      replaceImports: true,
      imports: [
        SqliteQueueModule.forRoot({
          ...connection.options,
          processing: module.processing ?? false,
          pollInterval: 100,
          leaseDuration: 6500,
        }),
      ],
      providers: (module.providers ?? []) as never[],
    });
    return { app, dataSource: connection.dataSource, producer: app.get(QueueProducer), admin: app.get(QueueAdmin) };
  }

  it('adds made beside an open transaction (not in its callback) resolve only with jobs that survive its rollback', async () => {
    const { dataSource, producer, admin } = await sharedApp();
    // A queue the admin may pause: one that holds a job (control of an unknown queue is refused).
    await producer.add('other', { known: true });
    const open = deferred();
    const release = deferred();
    const transaction = rolledBack(dataSource, async (manager) => {
      await producer.add('mail', { inside: true }, { manager });
      open.resolve();
      await release.promise;
    });
    await open.promise;
    // The same async flow that started the transaction, but not its callback: beside it.
    const beside = Promise.all([
      producer.add('mail', { beside: 'add' }),
      producer.addBulk('mail', [{ data: { beside: 'bulk 1' } }, { data: { beside: 'bulk 2' } }]),
      producer.addFlow({ queue: 'mail', data: { beside: 'flow' }, children: [{ queue: 'mail', data: { beside: 'child' } }] }),
      admin.pause('other'),
    ]);
    const answeredWhileOpen = await settledWithin(beside, 300);
    release.resolve();
    await transaction;
    const [added, bulk, flow] = await beside;
    const ids = [added.id, ...bulk.map((job) => job.id), flow.id];
    for (const id of ids) expect(await admin.getJob(id)).not.toBeNull();
    expect(await admin.getCounts('mail')).toMatchObject({ pending: 5 });
    expect((await admin.listQueues()).find((queue) => queue.name === 'other')?.paused).toBe(true);
    // SQLite holds them until the transaction ends; PostgreSQL writes them on another pooled connection at once.
    if (backend.kind === 'sqlite') expect(answeredWhileOpen).toBe(false);
  });

  it('a transaction started by another request holds the adds beside it, also with a QueryRunner of its own', async () => {
    const { dataSource, producer, admin } = await sharedApp();
    const open = deferred();
    const release = deferred();
    const transaction = inAnotherRequest(async () => {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await producer.add('mail', { inside: true }, { manager: runner.manager });
        open.resolve();
        await release.promise;
      } finally {
        await runner.rollbackTransaction();
        await runner.release();
      }
    });
    await open.promise;
    const beside = producer.add('mail', { beside: true });
    const answeredWhileOpen = await settledWithin(beside, 300);
    release.resolve();
    await transaction;
    expect(await admin.getJob((await beside).id)).not.toBeNull();
    expect(await admin.getCounts('mail')).toMatchObject({ pending: 1 });
    if (backend.kind === 'sqlite') expect(answeredWhileOpen).toBe(false);
  });

  it("a running job's progress and log lines written while another request's transaction is open survive its rollback", async () => {
    const proceed = deferred();
    const wrote = deferred();
    const mail = defineProcessor('mail', async (job: Job) => {
      await proceed.promise;
      await job.updateProgress(50);
      await job.log('half way');
      wrote.resolve();
      return 'done';
    });
    const { dataSource, producer, admin } = await sharedApp({ processing: true, providers: [mail] });
    const job = await producer.add('mail', {});
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'running', 'the job is running');
    const open = deferred();
    const release = deferred();
    const transaction = inAnotherRequest(() =>
      rolledBack(dataSource, async () => {
        open.resolve();
        await release.promise;
      }),
    );
    await open.promise;
    proceed.resolve();
    await settledWithin(wrote.promise, 300);
    release.resolve();
    await transaction;
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the job completed');
    expect((await admin.getJob(job.id))?.progress).toBe(50);
    expect(await admin.getJobLogs(job.id)).toEqual(['half way']);
  });

  // On PostgreSQL such calls take another pooled connection: they were never part of the transaction.
  itWhen(backend.kind === 'sqlite')(
    "calls made inside the transaction's callback without a manager run in it: they wait for nothing, and roll back with it",
    async () => {
      const { dataSource, producer, admin } = await sharedApp();
      await rolledBack(dataSource, async () => {
        const job = await producer.add('mail', { n: 1 });
        await producer.addBulk('mail', [{ data: { n: 2 } }, { data: { n: 3 } }]);
        await producer.addFlow({ queue: 'mail', data: { n: 4 }, children: [{ queue: 'mail', data: { n: 5 } }] });
        // The transaction's own rows are visible to the module's reads made inside it.
        expect(await admin.getJob(job.id)).not.toBeNull();
      });
      const runner = dataSource.createQueryRunner();
      await runner.startTransaction();
      await producer.add('mail', { n: 6 });
      await runner.rollbackTransaction();
      const kept = await dataSource.transaction(() => producer.add('mail', { n: 7 }));
      expect(await admin.getCounts('mail')).toMatchObject({ pending: 1 });
      expect((await admin.getJob(kept.id))?.data).toEqual({ n: 7 });
    },
  );

  it("a rolled-back add's handle never reports another job, and its id is never given to a later job", async () => {
    const mail = defineProcessor<{ who: string; secret?: string }>('mail', async (job) => job.data);
    const { dataSource, producer, admin } = await sharedApp({ processing: true, providers: [mail] });
    await producer.add('mail', { who: 'first' });
    let stale: EnqueuedJob | undefined;
    let waitedInside: Promise<unknown> | undefined;
    await rolledBack(dataSource, async (manager) => {
      stale = await producer.add('mail', { who: 'me' }, { manager });
      waitedInside = stale.waitUntilFinished({ timeout: 20_000 });
      waitedInside.catch(() => undefined);
    });
    const other = await producer.add('mail', { who: 'someone else', secret: 'B' });
    await expect(other.waitUntilFinished({ timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
    await expect(waitedInside).rejects.toBeInstanceOf(JobNotFoundError);
    await expect(stale!.waitUntilFinished({ timeout: 20_000 })).rejects.toBeInstanceOf(JobNotFoundError);
    expect(other.id).not.toBe(stale!.id);
    expect(await admin.getJob(stale!.id)).toBeNull();
  });

  it('a job undone by a rolled-back savepoint leaves its id to no later job of the same transaction, and its handle reports none', async () => {
    const mail = defineProcessor<{ who: string }>('mail', async (job) => job.data);
    const { dataSource, producer, admin } = await sharedApp({ processing: true, providers: [mail] });
    let stale: EnqueuedJob | undefined;
    const later = await dataSource.transaction(async (manager) => {
      await manager
        .transaction(async (inner) => {
          stale = await producer.add('mail', { who: 'me' }, { manager: inner });
          throw new Error('roll back to the savepoint');
        })
        .catch(() => undefined);
      return producer.add('mail', { who: 'someone else' }, { manager });
    });
    expect(Number(later.id)).toBeGreaterThan(Number(stale!.id));
    await expect(later.waitUntilFinished({ timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
    expect(await admin.getJob(stale!.id)).toBeNull();
    await expect(stale!.waitUntilFinished({ timeout: 20_000 })).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("with another DataSource on the same database (the module opened its own), a rolled-back add's id and handle stay its own", async () => {
    connection = await appConnection(current);
    const mail = defineProcessor<{ who: string }>('mail', async (job) => job.data);
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: [mail] });
    const producer = app.get(QueueProducer);
    let stale: EnqueuedJob | undefined;
    await rolledBack(connection.dataSource, async (manager) => {
      stale = await producer.add('mail', { who: 'me' }, { manager });
    });
    const other = await producer.add('mail', { who: 'someone else' });
    await expect(other.waitUntilFinished({ timeout: 20_000 })).resolves.toMatchObject({ status: 'completed' });
    await expect(stale!.waitUntilFinished({ timeout: 20_000 })).rejects.toBeInstanceOf(JobNotFoundError);
    expect(other.id).not.toBe(stale!.id);
  });

  it('throttled and debounced adds rolled back with their transaction leave ids that no later job gets', async () => {
    const { dataSource, producer } = await sharedApp();
    const rolledBackIds: string[] = [];
    await rolledBack(dataSource, async () => {
      rolledBackIds.push((await producer.add('mail', {}, { key: 'throttled', keyTtl: 60_000 })).id);
      rolledBackIds.push((await producer.add('mail', {}, { key: 'debounced', debounce: true })).id);
    });
    const highest = Math.max(...rolledBackIds.map(Number));
    const plain = await producer.add('mail', {});
    const throttled = await producer.add('mail', {}, { key: 'throttled-after', keyTtl: 60_000 });
    const debounced = await producer.add('mail', {}, { key: 'debounced-after', debounce: true });
    for (const job of [plain, throttled, debounced]) expect(Number(job.id)).toBeGreaterThan(highest);
  });

  it('a flow rolled back with its transaction leaves ids that no later job gets, even after a restart', async () => {
    const { app, dataSource, producer } = await sharedApp();
    let rolledBackIds: string[] = [];
    let flow: EnqueuedJob | undefined;
    await rolledBack(dataSource, async () => {
      flow = await producer.addFlow({ queue: 'mail', data: {}, children: [{ queue: 'mail', data: {} }] });
      const job = await producer.add('mail', {});
      rolledBackIds = [flow.id, job.id];
    });
    // On PostgreSQL these calls took pooled connections of their own: they committed, and their handles stay valid.
    if (backend.kind === 'sqlite') await expect(flow!.getChildrenResults()).rejects.toBeInstanceOf(JobNotFoundError);
    await current.close(app);
    const again = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection!.options, processing: false })],
    });
    const next = await again.get(QueueProducer).add('mail', {});
    expect(Number(next.id)).toBeGreaterThan(Math.max(...rolledBackIds.map(Number)));
  });
});
