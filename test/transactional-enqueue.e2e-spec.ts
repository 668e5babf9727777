import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource } from 'typeorm';
import { Job, QueueAdmin, QueueEvent, QueueEvents, QueueProducer, SqliteQueueModule, UnsupportedTransactionError } from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { readRunLog, startChildApp } from './support/child-app';
import { AppConnection, appConnection, rolledBack } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { waitFor } from './support/wait-for';

describeEachBackend('transactional enqueue (options.manager)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  it('a job added in a rolled-back transaction never exists; one added in a committed one runs in another OS process', async () => {
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const runLog = `${current.db.path}.runs`;
    const worker = startChildApp({ connection: current.db.options, runLog, module: { pollInterval: 100 }, queues: [{ name: 'mail' }] });
    await worker.printed('READY');
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, processing: false })],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);

    await rolledBack(dataSource, async (manager) => {
      await manager.query(`INSERT INTO ${orders} (id, item) VALUES (1, 'lost')`);
      await producer.add('mail', { n: 1 }, { manager });
      await producer.addBulk('mail', [
        { data: { n: 2 }, options: { manager } },
        { data: { n: 3 }, options: { manager } },
      ]);
      await producer.addFlow({ queue: 'mail', data: { n: 4 }, children: [{ queue: 'mail', data: { n: 5 } }] }, { manager });
    });
    expect((await admin.getCounts('mail')).pending).toBe(0);
    expect(await dataSource.query(`SELECT id FROM ${orders}`)).toEqual([]);

    const job = await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${orders} (id, item) VALUES (2, 'kept')`);
      return producer.add('mail', { n: 6 }, { manager });
    });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the committed job completed in the worker process');
    await worker.stop();
    expect(await admin.getCounts('mail')).toMatchObject({ pending: 0, running: 0, completed: 1 });
    expect((await admin.getJob<{ n: number }>(job.id))?.data).toEqual({ n: 6 });
    const runs = readRunLog(runLog);
    expect(runs).toHaveLength(1);
    expect(runs[0].pid).toBe(worker.process.pid);
    expect((await dataSource.query(`SELECT item FROM ${orders}`)).map((row: { item: string }) => row.item)).toEqual(['kept']);
  });

  it('an add not awaited before its transaction commits resolves with its job, whose events all go out', async () => {
    connection = await appConnection(current);
    const { dataSource } = connection;
    const Mail = defineProcessor('mail', async () => 'sent');
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 50 })],
      providers: [Mail],
    });
    const seen: QueueEvent[] = [];
    const subscription = app.get(QueueEvents).subscribe((event) => seen.push(event));
    try {
      let added: Promise<Job> | undefined;
      await dataSource.transaction(async (manager) => {
        // A forgotten await: the insert is sent in the transaction, its reply comes after the commit.
        added = app.get(QueueProducer).add('mail', { n: 1 }, { manager });
      });
      const job = await added!;
      await waitFor(() => seen.some((event) => event.jobId === job.id && event.type === 'completed'), 'the job ran, its events out');
      expect(seen.filter((event) => event.jobId === job.id).map((event) => event.type)).toEqual(['added', 'active', 'completed']);
      expect(await app.get(QueueAdmin).getCounts('mail')).toMatchObject({ pending: 0, completed: 1 });
    } finally {
      subscription.unsubscribe();
    }
  });

  it('workers wake at commit, not before: nothing runs while the transaction is open, and the job starts at once after it', async () => {
    connection = await appConnection(current);
    const { dataSource } = connection;
    const started: number[] = [];
    const mail = defineProcessor('mail', async (job: Job) => {
      started.push(Date.now());
      return job.id;
    });
    // A poll period far longer than the test: only a wake-up can start the job in time.
    const app = await current.startApp({
      replaceImports: true,
      // forRootAsync hands the module the application's existing DataSource just as well.
      imports: [SqliteQueueModule.forRootAsync({ useFactory: () => ({ ...connection!.options, pollInterval: 60_000 }) })],
      providers: [mail],
    });
    const producer = app.get(QueueProducer);
    // A first job settles the poller: after it, nothing but a wake-up makes it claim again within the test.
    await producer.add('mail', { n: 0 });
    await waitFor(() => started.length === 1, 'the warm-up job started');
    let committedAt = 0;
    await dataSource.transaction(async (manager) => {
      await producer.add('mail', { n: 1 }, { manager });
      // Room for a wrong implementation (a hint acted on before commit) to start the job; nothing to wait for instead.
      await sleep(300);
      expect(started).toHaveLength(1);
      committedAt = Date.now();
    });
    await waitFor(() => started.length === 2, 'the job started after commit', 10_000);
    expect(started[1] - committedAt).toBeLessThan(5_000);
  });

  it('works with another DataSource on the same database (the module opened its own): rollback leaves nothing, commit runs it', async () => {
    // The application's DataSource is not the module's: the module opens its own from the database options.
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const seen: number[] = [];
    const mail = defineProcessor<{ n: number }>('mail', async (job) => {
      seen.push(job.data.n);
    });
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: [mail] });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    await rolledBack(dataSource, async (manager) => {
      await manager.query(`INSERT INTO ${orders} (id, item) VALUES (1, 'lost')`);
      await producer.add('mail', { n: 1 }, { manager });
    });
    const job = await dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO ${orders} (id, item) VALUES (2, 'kept')`);
      return producer.add('mail', { n: 2 }, { manager });
    });
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the committed job completed');
    expect(seen).toEqual([2]);
    expect(await admin.getCounts('mail')).toMatchObject({ pending: 0, running: 0, completed: 1 });
  });

  it('announces added when the transaction commits, never when it (or the savepoint holding the job) rolls back, and before active', async () => {
    connection = await appConnection(current);
    const { dataSource } = connection;
    const mail = defineProcessor<{ n: number }>('mail', async (job) => job.data.n);
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 100 })],
      providers: [mail],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const seen: QueueEvent[] = [];
    const subscription = app.get(QueueEvents).subscribe((event) => seen.push(event));
    const addedIds = () => seen.filter((event) => event.type === 'added').map((event) => event.jobId);
    // On SQLite an add without a manager, made inside the callback, joins the transaction open on the shared connection.
    const joins = backend.kind !== 'postgres';
    try {
      await rolledBack(dataSource, async (manager) => {
        await producer.add('mail', { n: 1 }, { manager });
        await producer.addBulk('mail', [{ data: { n: 2 }, options: { manager } }]);
        await producer.addFlow({ queue: 'mail', data: { n: 3 }, children: [{ queue: 'mail', data: { n: 4 } }] }, { manager });
        if (joins) await producer.add('mail', { n: 0 });
      });
      expect(addedIds()).toEqual([]);

      let openAdded: string[] = [];
      let dropped = '';
      const ids = await dataSource.transaction(async (manager) => {
        const single = await producer.add('mail', { n: 5 }, { manager });
        const bulk = await producer.addBulk('mail', [
          { data: { n: 6 }, options: { manager } },
          { data: { n: 7 }, options: { manager } },
        ]);
        const root = await producer.addFlow({ queue: 'mail', data: { n: 8 }, children: [{ queue: 'mail', data: { n: 9 } }] }, { manager });
        // A savepoint released keeps its job; one rolled back takes its job with it while the outer transaction commits.
        const kept = await manager.transaction((inner) => producer.add('mail', { n: 10 }, { manager: inner }));
        await manager
          .transaction(async (inner) => {
            dropped = (await producer.add('mail', { n: 11 }, { manager: inner })).id;
            throw new Error('roll back to the savepoint');
          })
          .catch(() => undefined);
        const joined = joins ? [(await producer.add('mail', { n: 12 })).id] : [];
        openAdded = addedIds();
        return [single.id, ...bulk.map((job) => job.id), root.id, kept.id, ...joined];
      });
      expect(openAdded).toEqual([]);
      const flowChild = (await admin.getJob(ids[3]))!.flow!.childrenIds;
      // The order of the adds; a flow's child before its parent, as for an add outside a transaction.
      expect(addedIds()).toEqual([ids[0], ids[1], ids[2], ...flowChild, ids[3], ...ids.slice(4)]);
      expect(await admin.getJob(dropped)).toBeNull();
      await waitFor(async () => (await admin.getCounts('mail')).completed === ids.length + 1, 'the committed jobs completed');
      for (const id of [...ids, ...flowChild]) {
        const types = seen.filter((event) => event.jobId === id).map((event) => event.type);
        expect(types).toEqual(['added', 'active', 'completed']);
      }
    } finally {
      subscription.unsubscribe();
    }
  });

  it('refuses a manager that is no open transaction, or of another database, with UnsupportedTransactionError, writing nothing', async () => {
    connection = await appConnection(current);
    const { dataSource } = connection;
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, processing: false })],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const refusal = (reason: string) => expect.objectContaining({ name: UnsupportedTransactionError.name, reason });
    await expect(producer.add('mail', {}, { manager: dataSource.manager })).rejects.toEqual(refusal('not-a-transaction'));

    const other =
      backend.kind === 'postgres'
        ? new DataSource({ type: 'postgres', url: postgresTestUrl().replace(/\/[^/]*$/, '/postgres') })
        : new DataSource({ type: 'better-sqlite3', database: current.otherDatabase().path });
    await other.initialize();
    try {
      await other.transaction(async (manager) => {
        await expect(producer.add('mail', {}, { manager })).rejects.toEqual(refusal('other-database'));
        await expect(
          producer.addFlow({ queue: 'mail', data: {}, children: [{ queue: 'mail', data: {} }] }, { manager }),
        ).rejects.toBeInstanceOf(UnsupportedTransactionError);
      });
    } finally {
      await other.destroy();
    }
    expect((await admin.getCounts('mail')).pending).toBe(0);
  });
});
