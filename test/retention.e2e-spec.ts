import { Logger, Provider, Type } from '@nestjs/common';
import { TestingModule } from '@nestjs/testing';
import { DataSource, Logger as TypeOrmLogger } from 'typeorm';
import { JOBS_TABLE, Job, Processor, ProcessorOptions, QueueAdmin, QueueProcessor, QueueProducer, SqliteQueueModuleOptions } from '../lib';
import { RetentionKeeper } from '../lib/housekeeping/retention-keeper';
import { defineProcessor } from './fixtures/define-processor';
import { waitFor } from './support/wait-for';
import { describeEachBackend, itWhen, perTestApp } from './support/backends';
import { CONTRACT_LEASE, addJob, contractStorage, ref } from './support/storage-contract';
import { held } from './support/job-counts';

/** Records the SQL TypeORM sends (its sqlite runner logs every statement whatever `logging` says). */
class SqlRecorder implements TypeOrmLogger {
  readonly statements: string[] = [];
  logQuery(query: string): void {
    this.statements.push(query);
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/** A processor of `queue` that fails jobs whose data says so, and records what it ran. */
function retentionProcessor(queue: string, options: ProcessorOptions): Type<QueueProcessor> & { ran: string[] } {
  @Processor(queue, options)
  class RetentionProcessor implements QueueProcessor<{ fail?: boolean }, string> {
    static readonly ran: string[] = [];
    async process(job: Job<{ fail?: boolean }>): Promise<string> {
      RetentionProcessor.ran.push(job.id);
      if (job.data.fail) throw new Error('planned');
      return job.id;
    }
  }
  Object.defineProperty(RetentionProcessor, 'name', { value: `RetentionProcessor_${queue}` });
  return RetentionProcessor;
}

describeEachBackend('retention: removeOnComplete / removeOnFail', (backend) => {
  let app: TestingModule | undefined;
  let dataSource: DataSource | undefined;

  afterEach(() => {
    app = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend);
  // After perTestApp's hook (declared later, runs later): a borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    dataSource = undefined;
  });

  async function startApp(
    providers: Provider[],
    options: SqliteQueueModuleOptions = {},
  ): Promise<{ admin: QueueAdmin; producer: QueueProducer }> {
    app = await current.startApp({ module: { pollInterval: 100, ...options }, providers });
    return { admin: app.get(QueueAdmin), producer: app.get(QueueProducer) };
  }

  const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);

  it('removeOnComplete: 5 keeps exactly the 5 newest completed jobs of 50, and keeps doing so as more complete', async () => {
    const processor = retentionProcessor('kept5', { removeOnComplete: 5 });
    const { admin, producer } = await startApp([processor]);
    const jobs = await producer.addBulk(
      'kept5',
      Array.from({ length: 50 }, () => ({ data: {} })),
    );
    // All 50 finished (none still running: the last handler's completion may still be on its way to the database,
    // and would count a sixth completed job until the next sweep), and only 5 remain.
    await waitFor(async () => {
      const counts = await admin.getCounts('kept5');
      return processor.ran.length === 50 && held(counts) === 0 && counts.pending === 0 && counts.completed === 5;
    }, 'all ran and only 5 completed remain');

    expect(await admin.getCounts('kept5')).toEqual({ pending: 0, running: 0, completed: 5, failed: 0, cancelled: 0, claimed: 0 });
    expect(ids(await admin.getJobs('kept5'))).toEqual(ids(jobs.slice(-5)).reverse());

    const more = await producer.addBulk('kept5', [{ data: {} }, { data: {} }]);
    await waitFor(
      async () =>
        ids(await admin.getJobs('kept5', { status: 'completed' })).join() ===
        [...ids(more).reverse(), ...ids(jobs.slice(-3)).reverse()].join(),
      'window moved by two',
    );
    expect((await admin.getCounts('kept5')).completed).toBe(5);
  });

  it('removeOnComplete: 2 keeps the 2 jobs that finished last, not the 2 highest ids: a job added first and finished last stays', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const processor = defineProcessor<{ slow?: boolean }>(
      'finish-order',
      async (job) => {
        if (job.data.slow) await gate;
        return job.id;
      },
      { removeOnComplete: 2, concurrency: 4 },
    );
    const { admin, producer } = await startApp([processor]);
    const first = await producer.add('finish-order', { slow: true });
    await waitFor(async () => (await admin.getJob(first.id))?.status === 'running', 'the first job running');
    const later = await producer.addBulk('finish-order', [{ data: {} }, { data: {} }, { data: {} }]);
    await waitFor(
      async () => ids(await admin.getJobs('finish-order', { status: 'completed' })).join() === ids(later.slice(1)).reverse().join(),
      'the later three completed, the oldest of them removed',
    );
    // The first job finishes after all of them (a later millisecond than the newest), the newest finish of the queue.
    const newest = (await admin.getJob(later[2].id))!.finishedAt!.getTime();
    await waitFor(() => Date.now() > newest, 'a millisecond after the newest finish');
    release();
    await waitFor(async () => {
      const kept = ids(await admin.getJobs('finish-order', { status: 'completed' })).sort();
      return kept.join() === [first.id, later[2].id].sort().join();
    }, 'the job that finished last kept, beside the newest of the others');
    expect(await admin.getJob(later[1].id)).toBeNull();
    expect((await admin.getCounts('finish-order')).completed).toBe(2);
  });

  itWhen(backend.kind === 'sqlite')('applies retention in a few batched DELETE statements, not one per job', async () => {
    const recorder = new SqlRecorder();
    dataSource = new DataSource({ type: 'sqlite', database: current.db.path, logger: recorder, entities: [], synchronize: false });
    const processor = retentionProcessor('batched', { removeOnComplete: 5, concurrency: 10 });
    // The retention period is min(pollInterval, 1000): one sweep a second at most.
    const { admin, producer } = await startApp([processor], { dataSource, pollInterval: 1000 });
    await producer.addBulk(
      'batched',
      Array.from({ length: 50 }, () => ({ data: {} })),
    );
    await waitFor(
      async () =>
        processor.ran.length === 50 && held(await admin.getCounts('batched')) === 0 && (await admin.getCounts('batched')).completed === 5,
      'all ran and only 5 completed remain',
    );

    const deletes = recorder.statements.filter((sql) => sql.trimStart().startsWith(`DELETE FROM ${JOBS_TABLE}`));
    expect(deletes.length).toBeGreaterThanOrEqual(1);
    expect(deletes.length).toBeLessThan(10);
  });

  it('removeOnFail { count: 2 } keeps the 2 newest failed jobs and leaves completed ones alone', async () => {
    const processor = retentionProcessor('fails', { removeOnFail: { count: 2 }, maxAttempts: 1 });
    const { admin, producer } = await startApp([processor]);
    const failing = await producer.addBulk(
      'fails',
      Array.from({ length: 6 }, () => ({ data: { fail: true } })),
    );
    const passing = await producer.addBulk(
      'fails',
      Array.from({ length: 3 }, () => ({ data: {} })),
    );
    await waitFor(
      async () => processor.ran.length === 9 && held(await admin.getCounts('fails')) === 0 && (await admin.getCounts('fails')).failed === 2,
      'all ran and 2 failed remain',
    );

    expect(await admin.getCounts('fails')).toEqual({ pending: 0, running: 0, completed: 3, failed: 2, cancelled: 0, claimed: 0 });
    expect(ids(await admin.getJobs('fails', { status: 'failed' }))).toEqual(ids(failing.slice(-2)).reverse());
    expect(ids(await admin.getJobs('fails', { status: 'completed' }))).toEqual(ids(passing).reverse());
  });

  it('removeOnComplete: true removes every completed job; failed ones stay', async () => {
    const processor = retentionProcessor('gone', { removeOnComplete: true, maxAttempts: 1 });
    const { admin, producer } = await startApp([processor]);
    const failing = await producer.add('gone', { fail: true });
    await producer.addBulk(
      'gone',
      Array.from({ length: 10 }, () => ({ data: {} })),
    );
    await waitFor(async () => {
      const counts = await admin.getCounts('gone');
      // Running: its handler has returned but its completion (and so its removal) is not written yet.
      return processor.ran.length === 11 && held(counts) === 0 && counts.completed === 0 && counts.failed === 1;
    }, 'completed jobs removed');
    expect(ids(await admin.getJobs('gone'))).toEqual([failing.id]);
  });

  it('module-level removeOnComplete applies to processors that set none; a processor’s own value (false) overrides it', async () => {
    const byModule = retentionProcessor('by-module', {});
    const keepsAll = retentionProcessor('keeps-all', { removeOnComplete: false });
    const { admin, producer } = await startApp([byModule, keepsAll], { removeOnComplete: 3 });
    const moduleJobs = await producer.addBulk(
      'by-module',
      Array.from({ length: 10 }, () => ({ data: {} })),
    );
    await producer.addBulk(
      'keeps-all',
      Array.from({ length: 10 }, () => ({ data: {} })),
    );
    await waitFor(
      async () => byModule.ran.length === 10 && keepsAll.ran.length === 10 && (await admin.getCounts('by-module')).completed === 3,
      'module bound applied',
    );
    // A further sweep happened after this one's jobs completed, without touching it.
    const canary = await producer.add('by-module', {});
    await waitFor(
      async () => ids(await admin.getJobs('by-module')).join() === [canary.id, moduleJobs[9].id, moduleJobs[8].id].join(),
      'bound applied again',
    );
    expect((await admin.getCounts('keeps-all')).completed).toBe(10);
  });

  it('an age bound removes completed jobs once they are older than it; { count, age } applies the count at once', async () => {
    const aged = retentionProcessor('aged', { removeOnComplete: { age: 300 } });
    const both = retentionProcessor('both', { removeOnComplete: { count: 2, age: 3_600_000 } });
    const { admin, producer } = await startApp([aged, both]);
    const agedJobs = await producer.addBulk(
      'aged',
      Array.from({ length: 4 }, () => ({ data: {} })),
    );
    const bothJobs = await producer.addBulk(
      'both',
      Array.from({ length: 6 }, () => ({ data: {} })),
    );
    // Nothing running either: `ran` counts a handler when it starts, so the last job may still be running (its
    // completion not written) while the earlier ones are already trimmed to 2.
    const settled = async (queue: string, ran: string[], total: number, completed: number) => {
      const counts = await admin.getCounts(queue);
      return ran.length === total && held(counts) === 0 && counts.pending === 0 && counts.completed === completed;
    };
    await waitFor(() => settled('both', both.ran, 6, 2), 'count bound applied');
    expect(ids(await admin.getJobs('both'))).toEqual(ids(bothJobs.slice(-2)).reverse());

    await waitFor(() => settled('aged', aged.ran, 4, 0), 'aged jobs removed', 15_000);
    for (const job of agedJobs) expect(await admin.getJob(job.id)).toBeNull();
  });

  it('a clean shutdown leaves no count bound exceeded', async () => {
    const processor = retentionProcessor('shutdown', { removeOnComplete: 2 });
    const { admin, producer } = await startApp([processor], { pollInterval: 5000 });
    await producer.addBulk(
      'shutdown',
      Array.from({ length: 10 }, () => ({ data: {} })),
    );
    await waitFor(async () => processor.ran.length === 10 && held(await admin.getCounts('shutdown')) === 0, 'all ran');
    await current.close(app!);

    const { admin: reopened } = await startApp([], { processing: false });
    expect(await reopened.getCounts('shutdown')).toEqual({ pending: 0, running: 0, completed: 2, failed: 0, cancelled: 0, claimed: 0 });
  });
});

/**
 * The keeper on each backend's real storage, with the interleaving that made `{ count, age }` flaky on PostgreSQL forced:
 * a job completes (and is announced) while the sweep's DELETE is in flight, after the statement chose its rows. The
 * keeper must sweep again for it within a period, not once the age has passed.
 */
describeEachBackend('retention keeper: a job finished while its sweep runs', (backend) => {
  const contract = contractStorage(backend);
  const PERIOD = 20;

  /** Adds, claims and completes one job of `queue`; its id. */
  async function completeOne(queue: string): Promise<string> {
    const job = await addJob(contract.storage, queue);
    const now = Date.now();
    const [claimed] = await contract.storage.claim([{ queue, limit: 1 }], 'w', now, CONTRACT_LEASE);
    expect(claimed.id).toBe(job.id);
    expect((await contract.storage.completeMany([{ ref: ref(claimed), result: null }], 'w', now)).has(job.id)).toBe(true);
    return job.id;
  }

  it.each([
    ['{ count: 2, age: 1 h }', { count: 2, age: 3_600_000 }],
    ['a count of 2', 2],
  ])('%s: the count holds again at the next sweep, for the job announced during the DELETE', async (_case, removeOnComplete) => {
    const { storage } = contract;
    const earlier: string[] = [];
    for (let i = 0; i < 3; i++) earlier.push(await completeOne('both'));
    const logger = new Logger('retention-race');
    const keeper = new RetentionKeeper(storage, () => ({ removeOnComplete }), PERIOD, logger);
    const real = storage.applyRetention.bind(storage);
    const deletes = jest.spyOn(storage, 'applyRetention');
    let late: Promise<string> | undefined;
    deletes.mockImplementation(async (...args) => {
      const deleted = await real(...args);
      // The statement has run (its rows chosen without the job below); its answer is still on the way back.
      late ??= completeOne('both').then((id) => {
        keeper.mark('both', 'completed');
        return id;
      });
      await late;
      return deleted;
    });
    keeper.mark('both', 'completed');
    keeper.start();
    try {
      await waitFor(() => late !== undefined, 'the first sweep ran');
      const lateId = await late!;
      // stop() waits for the sweep in progress, then sweeps what is due: the late job's note must be due now (the lost
      // note waited for the age: with an hour, about 6 minutes), whether or not a periodic sweep took it first.
      await keeper.stop();
      const left = await storage.listJobs('both', { status: 'completed', limit: 10, offset: 0 });
      expect(left.map((job) => job.id).sort()).toEqual([earlier[2], lateId].sort());
    } finally {
      await keeper.stop();
      deletes.mockRestore();
    }
  });
});
