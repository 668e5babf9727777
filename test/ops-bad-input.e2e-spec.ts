import { Provider, Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import {
  DeclaredSchedule,
  InvalidArgumentError,
  InvalidJobStateError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  InvalidQueueNameError,
  InvalidScheduleError,
  Job,
  JobEventType,
  JobNotFoundError,
  OnJobEvent,
  Processor,
  ProcessorOptions,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  RetentionOption,
  ScheduleNotFoundError,
  ScheduleOptions,
  SqliteQueueModule,
  SqliteQueueModuleOptions,
} from '../lib';
import { errorOf } from './support/ops';
import { deferred, waitFor } from './support/wait-for';
import { availableBackends, describeEachBackend, itWhen, perFileApp, perTestApp, MIGRATED } from './support/backends';

const gate = { current: deferred(), started: deferred() };

const badSchedules: [string, unknown, RegExp][] = [
  ['an invalid cron expression', { cron: 'every tuesday' }, /cron/],
  ['a cron field out of range', { cron: '61 * * * *' }, /cron/],
  ['an empty cron', { cron: '' }, /cron/],
  ['an unknown time zone', { cron: '0 * * * *', timezone: 'Mars/Olympus_Mons' }, /time zone/],
  ['a time zone with every', { every: 1000, timezone: 'Europe/Paris' }, /timezone/],
  ['both cron and every', { cron: '0 * * * *', every: 1000 }, /exactly one/],
  ['neither cron nor every', { data: {} }, /exactly one/],
  ['every 0', { every: 0 }, /every/],
  ['every -1000', { every: -1000 }, /every/],
  ['every 1.5', { every: 1.5 }, /every/],
  ['every "1000"', { every: '1000' }, /every/],
  ['every NaN', { every: Number.NaN }, /every/],
  ['data that is not JSON', { every: 1000, data: { big: 1n } }, /./],
  ['a job option not allowed on schedules', { every: 1000, jobOptions: { delay: 5 } }, /delay/],
  ['a timeout longer than timers allow', { every: 1000, jobOptions: { timeout: 2 ** 31 } }, /timeout/],
  ['maxAttempts 0', { every: 1000, jobOptions: { maxAttempts: 0 } }, /maxAttempts/],
  ['an empty group', { every: 1000, jobOptions: { group: '' } }, /jobOptions\.group/],
  ['an oversized group', { every: 1000, jobOptions: { group: 'g'.repeat(100_000) } }, /jobOptions\.group/],
  ['a group that is not a string', { every: 1000, jobOptions: { group: 42 } }, /jobOptions\.group/],
];

@Processor('ops', { maxAttempts: 1 })
class OpsProcessor implements QueueProcessor<{ hold?: boolean; fail?: boolean }, string> {
  async process(job: Job<{ hold?: boolean; fail?: boolean }>): Promise<string> {
    if (job.data.hold) {
      gate.started.resolve();
      await gate.current.promise;
    }
    if (job.data.fail) throw new Error('planned');
    return 'ok';
  }
}

function processorWith(options: ProcessorOptions, queue = 'declared'): Type<QueueProcessor> {
  @Processor(queue, options)
  class DeclaredProcessor implements QueueProcessor {
    async process(): Promise<void> {}
  }
  return DeclaredProcessor;
}

/**
 * The backend on which checks that do not depend on it run: the first of this run. The apps that fail `init()` here
 * run on a SQLite DataSource of their own whatever the backend, so the other backends would only repeat them.
 */
const ONE_BACKEND = availableBackends()[0].name;

describeEachBackend('operations: bad input is refused at the boundary with a typed error, and writes nothing', (backend) => {
  const onOneBackend = itWhen(backend.name === ONE_BACKEND);
  let app: TestingModule | undefined;
  let borrowed: DataSource | undefined;
  /**
   * DataSources of apps whose init failed. The module may still be creating its schema on them when init()
   * rejects (Nest runs onModuleInit hooks concurrently), so they are closed once all tests are done.
   */
  const failedInits: DataSource[] = [];

  afterAll(async () => {
    for (const dataSource of failedInits) if (dataSource.isInitialized) await dataSource.destroy();
  });

  beforeEach(() => {
    gate.current = deferred();
    gate.started = deferred();
  });
  afterEach(async () => {
    gate.current.resolve();
    app = undefined;
    borrowed = undefined;
  });
  // Declared after the hook above, which runs first: it releases what would hold up the apps' shutdown.
  const current = perTestApp(backend, MIGRATED);

  async function compile(providers: Provider[], options: SqliteQueueModuleOptions = {}): Promise<TestingModule> {
    app = await current.compileApp({ module: { pollInterval: 100, ...options }, providers });
    return app;
  }

  async function startApp(providers: Provider[] = [OpsProcessor], options: SqliteQueueModuleOptions = {}) {
    const testing = await compile(providers, options);
    await testing.init();
    return { admin: testing.get(QueueAdmin), producer: testing.get(QueueProducer) };
  }

  /**
   * Why app.init() rejects. After a failed init Nest's close() rethrows the init error and runs no shutdown hook,
   * so nothing could close a connection the module opened: the app runs on a borrowed DataSource closed in
   * afterAll, and is dropped.
   */
  async function initError(providers: Provider[], options: SqliteQueueModuleOptions = {}): Promise<Error> {
    borrowed = new DataSource({ type: 'sqlite', database: current.db.path });
    failedInits.push(borrowed);
    // A SQLite DataSource of the test's own on every backend: what is refused here is independent of the backend.
    const testing = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ database: current.db.path, pollInterval: 100, ...options, dataSource: borrowed })],
      providers,
    }).compile();
    return errorOf(() => testing.init());
  }

  /** A producer-only app on the same file, to see what was written. */
  const reopen = () => startApp([], { processing: false });

  describe('QueueAdmin job operations', () => {
    it('a key or a schedule name no text column can hold (a NUL, half a surrogate pair) finds nothing, never a driver error', async () => {
      const { admin, producer } = await startApp();
      await producer.upsertSchedule('ops', 'nightly', { every: 3_600_000 });
      for (const text of ['night\0ly', 'night\uD800ly']) {
        const error = await errorOf(() => admin.getJobsByKey('ops', text));
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error).toMatchObject({ method: 'getJobsByKey', argument: 'key' });
        for (const operation of [
          () => admin.pauseSchedule('ops', text),
          () => admin.resumeSchedule('ops', text),
          () => admin.runScheduleNow('ops', text),
        ]) {
          expect(await errorOf(operation)).toBeInstanceOf(ScheduleNotFoundError);
        }
        expect(await admin.getLastScheduleRun('ops', text)).toBeNull();
        expect(await producer.removeSchedule('ops', text)).toBe(false);
      }
      expect((await producer.listSchedules()).map(({ name, paused }) => ({ name, paused }))).toEqual([{ name: 'nightly', paused: false }]);
      expect(await admin.getJobs('ops')).toEqual([]);
    });

    it.each(['999999', 'abc', '', '0', '-1', '1.5'])(
      'cancel, retry and remove of unknown id %j reject with JobNotFoundError',
      async (id) => {
        const { admin, producer } = await startApp();
        if (id === '999999') await producer.add('ops', {});
        for (const operation of [() => admin.cancel(id), () => admin.retry(id), () => admin.remove(id)]) {
          const error = await errorOf(operation);
          expect(error).toBeInstanceOf(JobNotFoundError);
          expect((error as JobNotFoundError).jobId).toBe(id);
        }
        expect(await admin.getJob(id)).toBeNull();
      },
    );

    it('refuses operations the job’s status does not allow with InvalidJobStateError, changing nothing', async () => {
      const { admin, producer } = await startApp();
      const completed = await producer.add('ops', {});
      await waitFor(async () => (await admin.getJob(completed.id))?.status === 'completed', 'completed');
      const running = await producer.add('ops', { hold: true });
      await gate.started.promise;
      await admin.pause('ops');
      const pending = await producer.add('ops', {});

      const cases: [string, () => Promise<unknown>, string, string][] = [
        ['retry a completed job', () => admin.retry(completed.id), 'completed', 'retry'],
        ['retry a pending job', () => admin.retry(pending.id), 'pending', 'retry'],
        ['retry a running job', () => admin.retry(running.id), 'running', 'retry'],
        ['cancel a completed job', () => admin.cancel(completed.id), 'completed', 'cancel'],
        ['remove a running job', () => admin.remove(running.id), 'running', 'remove'],
      ];
      for (const [name, operation, status, verb] of cases) {
        const error = await errorOf(operation);
        expect([name, error]).toEqual([name, expect.any(InvalidJobStateError)]);
        expect(error).toMatchObject({ status, operation: verb });
      }
      expect(await admin.getJob(completed.id)).toMatchObject({ status: 'completed', attempts: 1 });
      expect(await admin.getJob(running.id)).toMatchObject({ status: 'running' });
      expect(await admin.getJob(pending.id)).toMatchObject({ status: 'pending', attempts: 0 });
    });

    it('cancel and remove refuse a cascade that is not true or false, leaving the job as it was', async () => {
      const { admin, producer } = await startApp();
      // Delayed: it stays pending whatever the app's worker does, so only the refused call could change it.
      const job = await producer.add('ops', {}, { delay: 3_600_000 });
      for (const cascade of ['yes', 1, null]) {
        for (const [method, operation] of [
          ['cancel', () => admin.cancel(job.id, { cascade } as never)],
          ['remove', () => admin.remove(job.id, { cascade } as never)],
        ] as const) {
          const error = await errorOf(operation);
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect(error).toMatchObject({ method, argument: 'options' });
        }
      }
      expect(await admin.getJob(job.id)).toMatchObject({ status: 'pending' });
    });

    it.each<[string, unknown, string]>([
      ['status running', { status: 'running' }, 'status'],
      ['running among others', { status: ['completed', 'running'] }, 'status'],
      ['no status', { status: [] }, 'status'],
      ['an unknown status', { status: 'old' }, 'status'],
      ['negative olderThan', { status: 'completed', olderThan: -1 }, 'olderThan'],
      ['NaN olderThan', { status: 'completed', olderThan: Number.NaN }, 'olderThan'],
      ['string olderThan', { status: 'completed', olderThan: '60000' }, 'olderThan'],
      ['no options', undefined, 'options'],
    ])('clean with %s rejects with InvalidArgumentError and deletes nothing', async (_case, options, argument) => {
      const { admin, producer } = await startApp();
      const done = await producer.add('ops', {});
      const failed = await producer.add('ops', { fail: true });
      await waitFor(async () => {
        const counts = await admin.getCounts('ops');
        return counts.completed === 1 && counts.failed === 1;
      }, 'jobs finished');
      const error = await errorOf(() => admin.clean('ops', options as never));
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).toMatchObject({ method: 'clean', argument });
      expect(await admin.getJob(done.id)).not.toBeNull();
      expect(await admin.getJob(failed.id)).not.toBeNull();
    });
  });

  describe('schedules', () => {
    it('a bad update of an existing schedule leaves it as it was', async () => {
      const { producer } = await startApp([], { processing: false });
      const before = await producer.upsertSchedule('reports', 'nightly', { every: 60_000, data: { v: 1 } });
      for (const [, options] of badSchedules) {
        expect(await errorOf(() => producer.upsertSchedule('reports', 'nightly', options as ScheduleOptions))).toBeInstanceOf(
          InvalidScheduleError,
        );
      }
      expect(await producer.listSchedules()).toEqual([before]);
    });

    onOneBackend.each<[string, DeclaredSchedule[]]>([
      [
        'an invalid cron',
        [
          { name: 'ok', every: 1000 },
          { name: 'broken', cron: 'nope' },
        ],
      ],
      ['an unknown time zone', [{ name: 'tz', cron: '0 * * * *', timezone: 'Nowhere/Special' }]],
      ['every 0', [{ name: 'zero', every: 0 }]],
      [
        'the same name twice',
        [
          { name: 'twice', every: 1000 },
          { name: 'twice', every: 5000 },
        ],
      ],
    ])('@Processor schedules with %s fail app.init() with InvalidScheduleError, writing no schedule', async (_case, schedules) => {
      expect(await initError([processorWith({ schedules })])).toBeInstanceOf(InvalidScheduleError);
      const { producer } = await reopen();
      expect(await producer.listSchedules()).toEqual([]);
    });

    onOneBackend('@Processor schedules are validated at app.init() in a process that does not process, too', async () => {
      expect(await initError([processorWith({ schedules: [{ name: 'broken', cron: 'nope' }] })], { processing: false })).toBeInstanceOf(
        InvalidScheduleError,
      );
    });
  });

  describe('retention options and event listeners', () => {
    const badRetention: [string, unknown][] = [
      ['-1', -1],
      ['1.5', 1.5],
      ['"all"', 'all'],
      ['{ count: -2 }', { count: -2 }],
      ['{ age: -5 }', { age: -5 }],
      ['{}', {}],
      ['{ keep: 3 }', { keep: 3 }],
      ['null', null],
    ];

    onOneBackend.each(badRetention)(
      '@Processor removeOnComplete / removeOnFail %s fails app.init() with InvalidProcessorError',
      async (_case, value) => {
        for (const key of ['removeOnComplete', 'removeOnFail'] as const) {
          const error = await initError([processorWith({ [key]: value as RetentionOption })]);
          expect(error).toBeInstanceOf(InvalidProcessorError);
          expect(error.message).toContain(key);
        }
      },
    );

    // null is not in this list: in module options it means "not set" (keep all), like undefined.
    onOneBackend.each(badRetention.filter(([, value]) => value !== null))(
      'module removeOnComplete / removeOnFail %s fails app.init() with InvalidModuleOptionsError',
      async (_case, value) => {
        for (const key of ['removeOnComplete', 'removeOnFail'] as const) {
          const error = await initError([], { [key]: value as RetentionOption });
          expect(error).toBeInstanceOf(InvalidModuleOptionsError);
          expect(error.message).toContain(key);
        }
      },
    );

    onOneBackend('forRootAsync: a negative retention built by a factory fails app.init()', async () => {
      borrowed = new DataSource({ type: 'sqlite', database: current.db.path });
      failedInits.push(borrowed);
      const testing = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRootAsync({ useFactory: () => ({ dataSource: borrowed, removeOnFail: -3 }) })],
      }).compile();
      expect(await errorOf(() => testing.init())).toBeInstanceOf(InvalidModuleOptionsError);
    });

    onOneBackend('@OnJobEvent with an unknown event type fails app.init() with InvalidProcessorError', async () => {
      @Processor('listened')
      class Listener implements QueueProcessor {
        async process(): Promise<void> {}
        @OnJobEvent('finished' as JobEventType) onFinished(): void {}
      }
      const error = await initError([Listener]);
      expect(error).toBeInstanceOf(InvalidProcessorError);
      expect(error.message).toContain('finished');
    });
  });
});

/**
 * Bad arguments refused before any SQL runs (lib/admin, lib/producer: the same code on every backend): one backend,
 * one app for the whole block, since no test here writes; each still shows that nothing was written.
 */
describeEachBackend(
  'operations: arguments refused before any SQL, one app',
  (backend) => {
    const shared = perFileApp(backend, { module: { processing: false, pollInterval: 100 } });

    describe('QueueAdmin', () => {
      it.each<[string, Record<string, unknown>, string]>([
        ['limit 0', { limit: 0 }, 'limit'],
        ['limit 1001', { limit: 1001 }, 'limit'],
        ['limit 2.5', { limit: 2.5 }, 'limit'],
        ['limit "10"', { limit: '10' }, 'limit'],
        ['offset -1', { offset: -1 }, 'offset'],
        ['offset NaN', { offset: Number.NaN }, 'offset'],
        ['status "done"', { status: 'done' }, 'status'],
        ['status "RUNNING"', { status: 'RUNNING' }, 'status'],
      ])('getJobs with %s rejects with InvalidArgumentError', async (_case, options, argument) => {
        const admin = shared.get(QueueAdmin);
        const error = await errorOf(() => admin.getJobs('ops', options));
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error).toMatchObject({ method: 'getJobs', argument });
      });

      it.each([0, 1441, 2.5, -5, Number.NaN])(
        'getMetrics({ windowMinutes: %p }) rejects with InvalidArgumentError',
        async (windowMinutes) => {
          const admin = shared.get(QueueAdmin);
          const error = await errorOf(() => admin.getMetrics({ windowMinutes }));
          expect(error).toBeInstanceOf(InvalidArgumentError);
          expect(error).toMatchObject({ method: 'getMetrics', argument: 'windowMinutes' });
        },
      );

      it('queue operations reject a malformed queue name with InvalidQueueNameError', async () => {
        const admin = shared.get(QueueAdmin);
        for (const operation of [
          () => admin.pause(''),
          () => admin.resume(''),
          () => admin.getJobs(''),
          () => admin.retryAll(''),
          () => admin.clean('', { status: 'completed' }),
        ]) {
          expect(await errorOf(operation)).toBeInstanceOf(InvalidQueueNameError);
        }
        expect(await admin.listQueues()).toEqual([]);
      });
    });

    describe('schedules', () => {
      it.each(badSchedules)(
        'upsertSchedule with %s rejects with InvalidScheduleError and writes nothing',
        async (_case, options, reason) => {
          const producer = shared.get(QueueProducer);
          const error = await errorOf(() => producer.upsertSchedule('reports', 'nightly', options as ScheduleOptions));
          expect(error).toBeInstanceOf(InvalidScheduleError);
          expect(error.message).toMatch(reason);
          expect(error).toMatchObject({ queue: 'reports', scheduleName: 'nightly' });
          expect(await producer.listSchedules()).toEqual([]);
        },
      );

      it.each(['', 'has space', 'x'.repeat(129), 'émoji'])(
        'upsertSchedule with name %j rejects with InvalidScheduleError',
        async (name) => {
          const producer = shared.get(QueueProducer);
          expect(await errorOf(() => producer.upsertSchedule('reports', name, { every: 1000 }))).toBeInstanceOf(InvalidScheduleError);
          expect(await producer.listSchedules()).toEqual([]);
        },
      );
    });
  },
  [ONE_BACKEND],
);
