import { Type } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import {
  CompletionNotCommittedError,
  InvalidJobResultError,
  Job,
  JobFailedEvent,
  JobNotRunningError,
  QueueAdmin,
  QueueEvent,
  QueueEvents,
  QueueProducer,
  SqliteQueueModule,
  UnsupportedTransactionError,
} from '../lib';
import { JOBS_TABLE } from '../lib/table-names.constants';
import { defineProcessor } from './fixtures/define-processor';
import { AppConnection, appConnection } from './support/app-connection';
import { describeEachBackend, itWhen, perTestApp, MIGRATED } from './support/backends';
import { postgresTestUrl } from './support/test-backend';
import { deferred, waitFor } from './support/wait-for';
import { held } from './support/job-counts';

/** What the processor of queue `pay` does with each job; each test sets its own. */
type Handler = (job: Job<{ n: number }, { receipt: string }>) => Promise<unknown>;

describeEachBackend('transactional completion (job.completeIn)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  let handle: Handler = async () => undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  /** An app on the application's own DataSource (shared with the module), processing `pay` with `handle` (and `others`). */
  async function start(processing = true, others: Type[] = []) {
    connection = await appConnection(current);
    const pay = defineProcessor<{ n: number }>('pay', (job) => handle(job as Job<{ n: number }, { receipt: string }>), {
      backoff: { type: 'fixed', delay: 10 },
    });
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 100, processing })],
      providers: processing ? [pay, ...others] : [],
    });
    const { dataSource, orders } = connection;
    const schema = connection.options.postgres?.schema;
    return {
      app,
      dataSource,
      producer: app.get(QueueProducer),
      admin: app.get(QueueAdmin),
      events: app.get(QueueEvents),
      /** The effect: one row per job, its id the job's. */
      insertOrder: (manager: EntityManager, job: Job) =>
        manager.query(`INSERT INTO ${orders} (id, item) VALUES (${Number(job.id)}, 'paid')`),
      orderIds: async () =>
        ((await dataSource.query(`SELECT id FROM ${orders} ORDER BY id`)) as { id: number }[]).map((row) => Number(row.id)),
      jobs: schema ? `"${schema}".${JOBS_TABLE}` : JOBS_TABLE,
    };
  }

  it('commit: the effect and the completion land together, with the result given; what the handler returns is ignored', async () => {
    const t = await start();
    const seen: QueueEvent[] = [];
    const subscription = t.events.subscribe((event) => seen.push(event));
    let completedBeforeCommit = -1;
    const statusesBeforeCommit: string[] = [];
    handle = async (job) => {
      await t.dataSource.transaction(async (manager) => {
        await t.insertOrder(manager, job);
        await job.completeIn(manager, { receipt: `r-${job.data.n}` });
        completedBeforeCommit = seen.filter((event) => event.type === 'completed').length;
        // Written by this transaction: completed inside it, not yet outside (PostgreSQL reads beside it on another
        // connection; SQLite's one connection would read inside it).
        const [row] = (await manager.query(`SELECT status FROM ${t.jobs} WHERE id = ${Number(job.id)}`)) as { status: string }[];
        statusesBeforeCommit.push(row.status);
        if (backend.kind === 'postgres') statusesBeforeCommit.push((await t.admin.getJob(job.id))!.status);
      });
      return { receipt: 'ignored' };
    };
    try {
      const job = await t.producer.add<{ n: number }, { receipt: string }>('pay', { n: 1 });
      const finished = await job.waitUntilFinished({ timeout: 20_000 });
      expect(finished).toMatchObject({ status: 'completed', result: { receipt: 'r-1' }, attempts: 1, error: null });
      expect(await t.orderIds()).toEqual([Number(job.id)]);
      // Announced at the commit, not at the write, and once: the worker wrote nothing more.
      expect(completedBeforeCommit).toBe(0);
      expect(statusesBeforeCommit).toEqual(backend.kind === 'postgres' ? ['completed', 'running'] : ['completed']);
      await waitFor(async () => held(await t.admin.getCounts('pay')) === 0, 'the slot freed');
      const types = seen.filter((event) => event.jobId === job.id).map((event) => event.type);
      expect(types).toEqual(['added', 'active', 'completed']);
      expect(seen.find((event) => event.type === 'completed')).toMatchObject({ result: { receipt: 'r-1' }, attempt: 1 });
    } finally {
      subscription.unsubscribe();
    }
  });

  it('rollback: neither the effect nor the completion, the attempt fails (counted) and the job runs again', async () => {
    const t = await start();
    const seen: QueueEvent[] = [];
    const subscription = t.events.subscribe((event) => seen.push(event));
    const orderCountsSeen: number[] = [];
    handle = async (job) => {
      orderCountsSeen.push((await t.orderIds()).length);
      // First attempt: the transaction rolls back after completeIn and the handler returns anyway.
      // Second: it throws its own error out of the rolled-back transaction. Third: commits.
      await t.dataSource
        .transaction(async (manager) => {
          await t.insertOrder(manager, job);
          await job.completeIn(manager, { receipt: `attempt-${job.attempt}` });
          if (job.attempt < 3) throw new Error(`roll back attempt ${job.attempt}`);
        })
        .catch((error: Error) => {
          if (job.attempt === 2) throw error;
        });
      return { receipt: 'ignored' };
    };
    try {
      const job = await t.producer.add<{ n: number }, { receipt: string }>('pay', { n: 1 }, { maxAttempts: 3 });
      const finished = await job.waitUntilFinished({ timeout: 20_000 });
      expect(finished).toMatchObject({ status: 'completed', result: { receipt: 'attempt-3' }, attempts: 3 });
      // Each run found no row of the earlier ones: the rolled-back attempts left nothing.
      expect(orderCountsSeen).toEqual([0, 0, 0]);
      expect(await t.orderIds()).toEqual([Number(job.id)]);
      expect(finished.error).toMatchObject({ name: 'Error', message: 'roll back attempt 2', attempt: 2 });
      expect(finished.error!.previous![0]).toMatchObject({ name: CompletionNotCommittedError.name, attempt: 1 });
      expect(finished.error!.previous![0].message).toContain("rolled back (reason 'rolled-back')");
      // The completion is announced once written: the wait may see the row first.
      const typesOf = () => seen.filter((event) => event.jobId === job.id).map((event) => event.type);
      await waitFor(async () => typesOf().includes('completed'), 'the completed event');
      expect(typesOf()).toEqual(['added', 'active', 'retrying', 'active', 'retrying', 'active', 'completed']);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a rolled-back completion on the last attempt fails the job for good; one left open fails its attempt too', async () => {
    const t = await start();
    handle = async (job) => {
      if (job.data.n === 1) {
        await t.dataSource
          .transaction(async (manager) => {
            await job.completeIn(manager, { receipt: 'never' });
            throw new Error('roll back');
          })
          .catch(() => undefined);
        return undefined;
      }
      // A transaction the handler leaves open (a query runner of its own), rolled back only after the handler ended.
      const runner = t.dataSource.createQueryRunner();
      await runner.startTransaction();
      await t.insertOrder(runner.manager, job);
      await job.completeIn(runner.manager, { receipt: 'left open' });
      setTimeout(() => void runner.rollbackTransaction().then(() => runner.release()), 200);
      return undefined;
    };
    const failedEvents: JobFailedEvent[] = [];
    const subscription = t.events.on('failed').subscribe((event) => failedEvents.push(event));
    const rolled = await t.producer.add('pay', { n: 1 }, { maxAttempts: 1 });
    expect(await rolled.waitUntilFinished({ timeout: 20_000 })).toMatchObject({
      status: 'failed',
      result: null,
      attempts: 1,
      error: { name: CompletionNotCommittedError.name, message: expect.stringContaining("(reason 'rolled-back')") },
    });
    const open = await t.producer.add('pay', { n: 2 }, { maxAttempts: 1 });
    const failed = await open.waitUntilFinished({ timeout: 20_000 });
    expect(failed).toMatchObject({ status: 'failed', result: null, error: { name: CompletionNotCommittedError.name } });
    expect(failed.error!.message).toContain("still open when its handler ended (reason 'still-open')");
    expect(await t.orderIds()).toEqual([]);
    // The failed events carry the same error, the reason readable in each.
    await waitFor(() => failedEvents.length >= 2, 'the two failed events');
    subscription.unsubscribe();
    expect(failedEvents.map((event) => [event.jobId, event.error.message.match(/\(reason '([a-z-]+)'\)/)?.[1]])).toEqual([
      [rolled.id, 'rolled-back'],
      [open.id, 'still-open'],
    ]);
  });

  it('refuses a manager of no open transaction, of another database, a bad result and a second call, writing nothing', async () => {
    const t = await start();
    const other =
      backend.kind === 'postgres'
        ? new DataSource({ type: 'postgres', url: postgresTestUrl().replace(/\/[^/]*$/, '/postgres') })
        : new DataSource({ type: 'better-sqlite3', database: current.otherDatabase().path });
    await other.initialize();
    const refusals: unknown[] = [];
    const statusesAfter: string[] = [];
    const statusNow = async (job: Job) => statusesAfter.push((await t.admin.getJob(job.id))!.status);
    let handlerJob: Job | undefined;
    const handlerEnded = deferred();
    handle = async (job) => {
      handlerJob = job;
      const refused = async (call: () => Promise<unknown>) => {
        refusals.push(
          await call().then(
            () => null,
            (error: unknown) => error,
          ),
        );
        await statusNow(job);
      };
      await refused(() => job.completeIn(t.dataSource.manager, { receipt: 'no transaction' }));
      await refused(() => other.transaction((manager) => job.completeIn(manager, { receipt: 'other database' })));
      await refused(() =>
        t.dataSource.transaction(async (manager) => {
          await t.insertOrder(manager, job);
          await job.completeIn(manager, { receipt: 10n } as unknown as { receipt: string });
        }),
      );
      // Refused calls left the attempt as it was: progress still works, and a good call completes it.
      await job.updateProgress(50);
      await t.dataSource.transaction(async (manager) => {
        await job.completeIn(manager, { receipt: 'once' });
        await refused(() => job.completeIn(manager, { receipt: 'twice' }));
      });
      await refused(() => job.updateProgress(100));
      await refused(() => t.dataSource.transaction((manager) => job.completeIn(manager, { receipt: 'after commit' })));
      handlerEnded.resolve();
      return undefined;
    };
    try {
      const job = await t.producer.add<{ n: number }, { receipt: string }>('pay', { n: 1 });
      const finished = await job.waitUntilFinished({ timeout: 20_000 });
      expect(finished).toMatchObject({ status: 'completed', result: { receipt: 'once' }, attempts: 1, progress: 50 });
      // The job is completed at the commit; the handler goes on to its last refusals.
      await handlerEnded.promise;
      expect(refusals).toEqual([
        expect.objectContaining({ name: UnsupportedTransactionError.name, reason: 'not-a-transaction', call: 'complete' }),
        expect.objectContaining({ name: UnsupportedTransactionError.name, reason: 'other-database', call: 'complete' }),
        expect.any(InvalidJobResultError),
        expect.any(JobNotRunningError),
        expect.any(JobNotRunningError),
        expect.any(JobNotRunningError),
      ]);
      expect((refusals[0] as Error).message).toContain('Cannot complete a job in this transaction');
      expect((refusals[3] as Error).message).toContain('already completed by job.completeIn');
      // Nothing written by a refusal: the job ran on, and the refused transaction's effect rolled back with it.
      expect(statusesAfter.slice(0, 3)).toEqual(['running', 'running', 'running']);
      expect(await t.orderIds()).toEqual([]);
      // Not running: a job handed back by add(), and the handler's job once its attempt ended.
      const added = await t.producer.add('idle', {});
      await expect(t.dataSource.transaction((manager) => added.completeIn(manager, 'x'))).rejects.toBeInstanceOf(JobNotRunningError);
      await expect(t.dataSource.transaction((manager) => handlerJob!.completeIn(manager, { receipt: 'late' }))).rejects.toBeInstanceOf(
        JobNotRunningError,
      );
      expect(await t.admin.getJob(added.id)).toMatchObject({ status: 'pending', result: null });
      expect(await t.admin.getJob(job.id)).toMatchObject({ status: 'completed', result: { receipt: 'once' } });
    } finally {
      await other.destroy();
    }
  });

  it('a lease lost meanwhile (another worker took the job): completeIn rejects, the transaction rolls back its effect', async () => {
    const t = await start();
    const reclaimed = deferred();
    let rejection: unknown;
    handle = async (job) => {
      // What lease recovery and another worker's claim leave: the row running under another owner, a newer attempt.
      await t.dataSource.query(`UPDATE ${t.jobs} SET locked_by = 'other-worker', attempts = attempts + 1 WHERE id = ${Number(job.id)}`);
      await t.dataSource
        .transaction(async (manager) => {
          await t.insertOrder(manager, job);
          await job.completeIn(manager, { receipt: 'stolen' });
        })
        .catch((error: unknown) => (rejection = error));
      reclaimed.resolve();
      return { receipt: 'returned' };
    };
    const job = await t.producer.add('pay', { n: 1 });
    await reclaimed.promise;
    expect(rejection).toBeInstanceOf(JobNotRunningError);
    expect(await t.orderIds()).toEqual([]);
    // The attempt's own outcome is fenced too: the other worker's run is left as it was (claimed by it: the start this
    // process had is not written over its claim).
    await waitFor(async () => {
      const counts = await t.admin.getCounts('pay');
      return counts.running + counts.claimed === 1;
    }, 'the row still running under the other worker');
    expect(await t.admin.getJob(job.id)).toMatchObject({ status: 'running', attempts: 2, result: null });
  });

  it('a timeout ends the attempt: a completeIn after it is refused; a completion it caught open stands once committed', async () => {
    const t = await start();
    const seen: QueueEvent[] = [];
    const subscription = t.events.subscribe((event) => seen.push(event));
    const lateCall = deferred<unknown>();
    const aborted = (job: Job) => new Promise((resolve) => job.signal.addEventListener('abort', resolve));
    handle = async (job) => {
      if (job.data.n === 1) {
        await aborted(job);
        lateCall.resolve(
          await t.dataSource
            .transaction((manager) => job.completeIn(manager, { receipt: 'late' }))
            .then(
              () => null,
              (error: unknown) => error,
            ),
        );
        return undefined;
      }
      // Completed in the transaction, which commits only once the timeout has fired: the attempt's failure is fenced.
      await t.dataSource.transaction(async (manager) => {
        await t.insertOrder(manager, job);
        await job.completeIn(manager, { receipt: 'slow commit' });
        await aborted(job);
      });
      return undefined;
    };
    try {
      const refused = await t.producer.add('pay', { n: 1 }, { timeout: 100, maxAttempts: 1 });
      expect(await refused.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'failed', error: { name: 'JobTimeoutError' } });
      expect(await lateCall.promise).toBeInstanceOf(JobNotRunningError);
      // Long enough for the completion to be written first, on a loaded machine too; the handler waits for it anyway.
      const slow = await t.producer.add('pay', { n: 2 }, { timeout: 1000, maxAttempts: 1 });
      expect(await slow.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'completed', result: { receipt: 'slow commit' } });
      await waitFor(async () => held(await t.admin.getCounts('pay')) === 0, 'the slot freed');
      expect(await t.admin.getJob(slow.id)).toMatchObject({ status: 'completed', result: { receipt: 'slow commit' }, attempts: 1 });
      expect(seen.filter((event) => event.jobId === slow.id).map((event) => event.type)).toEqual(['added', 'active', 'completed']);
      expect(await t.orderIds()).toEqual([Number(slow.id)]);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a completion undone with its savepoint can be made again in the transaction around it, which commits it', async () => {
    const t = await start();
    const undone: string[] = [];
    handle = async (job) => {
      await t.dataSource.transaction(async (manager) => {
        await manager
          .transaction(async (inner) => {
            await job.completeIn(inner, { receipt: 'savepoint' });
            throw new Error('roll back to the savepoint');
          })
          .catch((error: Error) => undone.push(error.message));
        await t.insertOrder(manager, job);
        await job.completeIn(manager, { receipt: 'outer' });
      });
      return undefined;
    };
    const job = await t.producer.add('pay', { n: 1 }, { maxAttempts: 1 });
    expect(await job.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'completed', result: { receipt: 'outer' } });
    expect(undone).toEqual(['roll back to the savepoint']);
    expect(await t.orderIds()).toEqual([Number(job.id)]);
  });

  it('works with another DataSource on the same database (the module opened its own)', async () => {
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const pay = defineProcessor<{ n: number }>('pay', async (job) => {
      await dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${orders} (id, item) VALUES (${Number(job.id)}, 'paid')`);
        await (job as Job<{ n: number }, { n: number }>).completeIn(manager, { n: job.data.n });
      });
    });
    const app = await current.startApp({ module: { pollInterval: 100 }, providers: [pay] });
    const job = await app.get(QueueProducer).add('pay', { n: 7 });
    expect(await job.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'completed', result: { n: 7 } });
    expect(await dataSource.query(`SELECT id FROM ${orders}`)).toEqual([{ id: Number(job.id) }]);
  });

  it('composes: a flow parent runs once its children completed in transactions, with their results; removeOnComplete removes', async () => {
    const parentSaw: unknown[] = [];
    const assemble = defineProcessor('assemble', async (job) => {
      parentSaw.push(await job.getChildrenResults());
      return 'assembled';
    });
    const t = await start(true, [assemble]);
    handle = async (job) => {
      await t.dataSource.transaction(async (manager) => {
        await t.insertOrder(manager, job);
        await job.completeIn(manager, { receipt: `child-${job.data.n}` });
      });
      return undefined;
    };
    const { producer, admin } = t;
    const parent = await producer.addFlow({
      queue: 'assemble',
      data: {},
      children: [
        { queue: 'pay', data: { n: 1 } },
        { queue: 'pay', data: { n: 2 } },
      ],
    });
    expect(await parent.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'completed', result: 'assembled' });
    const children = (await admin.getJob(parent.id))!.flow!.childrenIds;
    expect(parentSaw).toHaveLength(1);
    const seenByParent = parentSaw[0] as Record<string, { receipt: string }>;
    expect(Object.keys(seenByParent).sort()).toEqual([...children].sort());
    expect(
      Object.values(seenByParent)
        .map((result) => result.receipt)
        .sort(),
    ).toEqual(['child-1', 'child-2']);
    for (const id of children) expect((await admin.getJob(id))!.result).toEqual(seenByParent[id]);
    const removed = await producer.add('pay', { n: 3 }, { removeOnComplete: true });
    await waitFor(async () => (await admin.getJob(removed.id)) === null, 'the job completed in a transaction removed');
    expect(await t.orderIds()).toEqual([...children.map(Number), Number(removed.id)].sort((a, b) => a - b));
  });

  // PostgreSQL alone: a snapshot older than the row's last lease renewal cannot update it.
  itWhen(backend.kind === 'postgres')(
    'a completion refused by the database (a serialization failure) leaves the attempt as it was: a retried transaction completes it',
    async () => {
      const t = await start();
      const tries: string[] = [];
      handle = async (job) => {
        await t.dataSource
          .transaction('REPEATABLE READ', async (manager) => {
            await manager.query('SELECT 1');
            const renewed = (await t.admin.getJob(job.id))!.leaseUntil!.getTime();
            await waitFor(async () => (await t.admin.getJob(job.id))!.leaseUntil!.getTime() > renewed, 'a heartbeat renewed the lease');
            await t.insertOrder(manager, job);
            await job.completeIn(manager, { receipt: 'stale snapshot' });
          })
          .catch((error: Error) => tries.push(`${error.name} ${(error as { transient?: boolean }).transient}`));
        await t.dataSource.transaction(async (manager) => {
          await t.insertOrder(manager, job);
          await job.completeIn(manager, { receipt: 'retried' });
        });
        return undefined;
      };
      const job = await t.producer.add('pay', { n: 1 }, { maxAttempts: 1 });
      expect(await job.waitUntilFinished({ timeout: 20_000 })).toMatchObject({ status: 'completed', result: { receipt: 'retried' } });
      expect(tries).toEqual(['StorageError true']);
      expect(await t.orderIds()).toEqual([Number(job.id)]);
    },
  );

  it('a completeIn not awaited before its transaction commits: the completion is heard, announced once, and resolves', async () => {
    const t = await start();
    const seen: QueueEvent[] = [];
    const subscription = t.events.subscribe((event) => seen.push(event));
    const settled: string[] = [];
    handle = async (job) => {
      let completion: Promise<void> | undefined;
      await t.dataSource.transaction(async (manager) => {
        await t.insertOrder(manager, job);
        // A forgotten await: the statement is sent in the transaction, its reply comes after the commit.
        completion = job.completeIn(manager, { receipt: 'unawaited' });
      });
      await completion!.then(
        () => settled.push('resolved'),
        (error: Error) => settled.push(`${error.name}: ${error.message}`),
      );
    };
    try {
      const job = await t.producer.add('pay', { n: 1 }, { maxAttempts: 1 });
      expect(await job.waitUntilFinished({ timeout: 20_000 })).toMatchObject({
        status: 'completed',
        result: { receipt: 'unawaited' },
        attempts: 1,
      });
      await waitFor(() => seen.some((event) => event.jobId === job.id && event.type === 'completed'), 'the completion announced');
      await waitFor(async () => held(await t.admin.getCounts('pay')) === 0, 'the slot freed');
      expect(settled).toEqual(['resolved']);
      expect(seen.filter((event) => event.jobId === job.id).map((event) => event.type)).toEqual(['added', 'active', 'completed']);
      expect(await t.orderIds()).toEqual([Number(job.id)]);
    } finally {
      subscription.unsubscribe();
    }
  });

  it('a handler that throws after its completion committed leaves the job completed, announced once', async () => {
    const t = await start();
    const seen: QueueEvent[] = [];
    const subscription = t.events.subscribe((event) => seen.push(event));
    handle = async (job) => {
      await t.dataSource.transaction(async (manager) => {
        await t.insertOrder(manager, job);
        await job.completeIn(manager, { receipt: 'kept' });
      });
      throw new Error('after the commit');
    };
    try {
      const job = await t.producer.add('pay', { n: 1 }, { maxAttempts: 3 });
      expect(await job.waitUntilFinished({ timeout: 20_000 })).toMatchObject({
        status: 'completed',
        result: { receipt: 'kept' },
        attempts: 1,
        error: null,
      });
      // Announced at the commit, by this process: the waiter may hear of the finished row first (PostgreSQL's notice).
      await waitFor(() => seen.some((event) => event.jobId === job.id && event.type === 'completed'), 'the completion announced');
      await waitFor(async () => held(await t.admin.getCounts('pay')) === 0, 'the slot freed');
      expect(seen.filter((event) => event.jobId === job.id).map((event) => event.type)).toEqual(['added', 'active', 'completed']);
      expect(await t.orderIds()).toEqual([Number(job.id)]);
    } finally {
      subscription.unsubscribe();
    }
  });
});
