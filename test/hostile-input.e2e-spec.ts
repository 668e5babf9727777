/**
 * Hostile input: keys that cannot round-trip, numbers out of range, data nested past the stack,
 * misspelt module options, leases shorter than SQLite's lock wait, and retries whose key a live job holds.
 * Each is refused with a typed error before anything is written, or handled without a raw driver error; none
 * may hang the queue. Tests that could hang on a regression carry their own short timeout.
 */
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  InvalidArgumentError,
  InvalidJobDataError,
  InvalidJobOptionsError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  InvalidScheduleError,
  JobKeyConflictError,
  QueueAdmin,
  QueueProducer,
  SqliteQueueModule,
  SqliteQueueModuleOptions,
  SqliteQueueOptionsFactory,
  UnrecoverableError,
} from '../lib';
import { QueueRuntime } from '../lib/runtime/queue-runtime';
import { PairingBackend, pairEnqueued } from '../lib/storage/shared/pair-enqueued';
import { NewJobRecord } from '../lib/storage/queue-storage.interface';
import { defineProcessor } from './fixtures/define-processor';
import { startLockHolder } from './support/child-app';
import { waitFor } from './support/wait-for';
import { describeEachBackend, describeEachSqlite, perTestApp, MIGRATED } from './support/backends';

/** Fails fast instead of spinning a CPU and growing memory when a regression makes a call hang. */
const HANG_TIMEOUT = 15_000;

/** The documented bounds (docs/configuration.md, options tables), stated here as the specification. */
const LIMITS = { maxAttempts: 2_147_483_647, durationMs: 3_155_760_000_000, epochMs: 253_402_300_799_999 };

const LONE_HIGH = '😀'.slice(0, 1);
const LONE_LOW = '😀'.slice(1);

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { child: value } : [value];
  return value;
}

describeEachBackend('hostile input', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  async function start(
    options: SqliteQueueModuleOptions = {},
    providers: unknown[] = [],
  ): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 50, ...options })],
      providers: providers as never[],
    }).compile();
    await current.app.init();
    return { producer: current.app.get(QueueProducer), admin: current.app.get(QueueAdmin) };
  }

  /** What app.init() rejects with (undefined when it resolves); the app is closed either way. */
  async function initError(
    options: SqliteQueueModuleOptions | (() => SqliteQueueModuleOptions),
    providers: unknown[] = [],
  ): Promise<unknown> {
    const module =
      typeof options === 'function'
        ? SqliteQueueModule.forRootAsync({ useFactory: options })
        : SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 50, ...options });
    const app = await Test.createTestingModule({ imports: [module], providers: providers as never[] }).compile();
    const error = await app.init().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // Nest's close() would await the failed init again and rethrow.
    (app as unknown as { initializationPromise?: Promise<void> }).initializationPromise = undefined;
    await app.close();
    return error;
  }

  async function totalJobs(admin: QueueAdmin): Promise<number> {
    return Object.values(await admin.getCounts()).reduce((sum, count) => sum + count, 0);
  }

  describe('keys that cannot round-trip (item 2)', () => {
    const unstorable: [string, string][] = [
      ['a lone high surrogate (text cut inside an emoji)', `user:${LONE_HIGH}`],
      ['a lone low surrogate', `${LONE_LOW}tail`],
      ['a NUL character', 'a\u0000b'],
    ];

    it.each(unstorable)(
      'a key holding %s is refused by add, twice, promptly, with nothing written',
      async (_label, key) => {
        const { producer, admin } = await start({ processing: false });
        for (let i = 0; i < 2; i++) {
          const error = await producer.add('keys', { i }, { key }).catch((caught: unknown) => caught);
          expect(error).toBeInstanceOf(InvalidJobOptionsError);
          expect(error).toMatchObject({ option: 'key' });
        }
        expect(await totalJobs(admin)).toBe(0);
      },
      HANG_TIMEOUT,
    );

    it.each(unstorable)(
      'a key holding %s is refused by addBulk, naming the item, with nothing written',
      async (_label, key) => {
        const { producer, admin } = await start({ processing: false });
        const error = await producer.addBulk('keys', [{ data: 1 }, { data: 2, options: { key } }]).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(InvalidJobOptionsError);
        expect(error).toMatchObject({ option: 'items[1].key' });
        expect(await totalJobs(admin)).toBe(0);
      },
      HANG_TIMEOUT,
    );

    it(
      'add and addBulk store the same key for awkward but valid text, and each finds the job the other made',
      async () => {
        const { producer, admin } = await start({ processing: false });
        const keys = [
          'emoji 😀 and 𝄞',
          'control \u0001\u001f\t\n\r',
          'quotes " \' and \\ backslash \\u0000 (escaped text, not a NUL)',
          'separators \u2028\u2029 and BOM \ufeff',
          'combining e\u0301 vs \u00e9',
          'x'.repeat(1024),
        ];
        for (const [index, key] of keys.entries()) {
          const viaAdd = await producer.add('keys', { index }, { key });
          const [viaBulk] = await producer.addBulk('keys', [{ data: { index, bulk: true }, options: { key } }]);
          expect(viaBulk.id).toBe(viaAdd.id);
          expect((await admin.getJob(viaAdd.id))?.key).toBe(key);
          // And the other way round, in another queue.
          const [firstBulk] = await producer.addBulk('keys-2', [{ data: 0, options: { key } }, { data: 1 }]);
          expect((await producer.add('keys-2', { index }, { key })).id).toBe(firstBulk.id);
          expect((await admin.getJob(firstBulk.id))?.key).toBe(key);
        }
        expect(await admin.getCounts('keys')).toMatchObject({ pending: keys.length });
        expect(await admin.getCounts('keys-2')).toMatchObject({ pending: 2 * keys.length });
      },
      HANG_TIMEOUT,
    );

    it('data may hold NUL and lone surrogates: JSON escapes them, and add and addBulk store them unchanged', async () => {
      const { producer, admin } = await start({ processing: false });
      const data = { nul: 'a\u0000b', high: `cut ${LONE_HIGH}`, low: LONE_LOW, [`key${LONE_HIGH}\u0000`]: 1 };
      const single = await producer.add('data', data);
      const [bulk] = await producer.addBulk<unknown>('data', [{ data }, { data: 2 }]);
      expect((await admin.getJob(single.id))?.data).toEqual(data);
      expect((await admin.getJob(bulk.id))?.data).toEqual(data);
    });

    it(
      'below the boundary, a key the database stores altered ends the second enqueue with a typed error instead of looping',
      async () => {
        await start({ processing: false });
        const storage = await current.app!.get(QueueRuntime).storage();
        const key = `k${LONE_HIGH}`;
        const job: NewJobRecord = { data: '{}', priority: 0, runAt: Date.now(), maxAttempts: 1, backoff: null, timeout: null, key };
        await storage.enqueue('raw-keys', [job], Date.now());
        const error = await storage.enqueue('raw-keys', [job], Date.now()).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(JobKeyConflictError);
      },
      HANG_TIMEOUT,
    );

    it('a key that can never be found again ends the enqueue with a typed error after a bounded number of inserts', async () => {
      const job: NewJobRecord = { data: '{}', priority: 0, runAt: 0, maxAttempts: 1, backoff: null, timeout: null, key: 'k' };
      let inserts = 0;
      const backend: PairingBackend = {
        findByKeys: async () => [],
        insert: async () => {
          inserts++;
          return [];
        },
      };
      const error = await pairEnqueued(backend, 'q', [job], [], 0).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JobKeyConflictError);
      expect(error).toMatchObject({ queue: 'q', key: 'k' });
      expect(inserts).toBeLessThanOrEqual(3);
    });
  });

  describe('numbers out of range (item 5)', () => {
    const jobCases: [string, object][] = [
      ['delay 1e16', { delay: 1e16 }],
      ['delay Number.MAX_VALUE', { delay: Number.MAX_VALUE }],
      ['delay just past 100 years', { delay: LIMITS.durationMs + 1 }],
      ['runAt at the last valid Date', { runAt: new Date(8.64e15) }],
      ['maxAttempts 1e20', { maxAttempts: 1e20 }],
      ['maxAttempts 2^31', { maxAttempts: 2 ** 31 }],
      ['priority 2^53', { priority: 2 ** 53 }],
      ['backoff.delay 1e16', { backoff: { type: 'fixed', delay: 1e16 } }],
      ['backoff.maxDelay Number.MAX_VALUE', { backoff: { type: 'exponential', delay: 1, maxDelay: Number.MAX_VALUE } }],
    ];

    it.each(jobCases)('add with %s is refused with InvalidJobOptionsError, nothing written', async (_label, options) => {
      const { producer, admin } = await start({ processing: false });
      await expect(producer.add('nums', {}, options)).rejects.toBeInstanceOf(InvalidJobOptionsError);
      await expect(producer.addBulk('nums', [{ data: 1 }, { data: 2, options }])).rejects.toBeInstanceOf(InvalidJobOptionsError);
      expect(await totalJobs(admin)).toBe(0);
    });

    it('the bounds themselves are accepted and stored exactly, as integers', async () => {
      const { producer, admin } = await start({ processing: false });
      const job = await producer.add('nums', {}, { delay: LIMITS.durationMs, maxAttempts: LIMITS.maxAttempts, priority: 2 ** 53 - 1 });
      const bulkOptions = { maxAttempts: LIMITS.maxAttempts, runAt: new Date(LIMITS.epochMs) };
      const [bulk] = await producer.addBulk('nums', [{ data: 1, options: bulkOptions }]);
      const stored = await admin.getJob(job.id);
      expect(stored).toMatchObject({ maxAttempts: LIMITS.maxAttempts, priority: Number.MAX_SAFE_INTEGER });
      expect(Number.isNaN(stored!.runAt.getTime())).toBe(false);
      expect((await admin.getJob(bulk.id))?.runAt.getTime()).toBe(LIMITS.epochMs);
    });

    it('schedules refuse an every or job option out of range with InvalidScheduleError', async () => {
      const { producer } = await start({ processing: false });
      await expect(producer.upsertSchedule('nums', 's', { every: 1e16 })).rejects.toBeInstanceOf(InvalidScheduleError);
      for (const jobOptions of [{ maxAttempts: 1e20 }, { backoff: { type: 'fixed' as const, delay: 1e300 } }]) {
        await expect(producer.upsertSchedule('nums', 's', { every: 1000, jobOptions })).rejects.toBeInstanceOf(InvalidScheduleError);
      }
      expect(await producer.listSchedules()).toEqual([]);
    });

    it('clean refuses an olderThan out of range with InvalidArgumentError', async () => {
      const { admin } = await start({ processing: false });
      await expect(admin.clean('nums', { status: 'failed', olderThan: 1e300 })).rejects.toBeInstanceOf(InvalidArgumentError);
    });

    it.each([
      ['batchSize 1e20', { batchSize: 1e20 }],
      ['maxAttempts 1e20', { maxAttempts: 1e20 }],
      ['backoff.delay 1e300', { backoff: { type: 'fixed', delay: 1e300 } }],
      ['removeOnComplete.age 1e300', { removeOnComplete: { age: 1e300 } }],
    ] as [string, SqliteQueueModuleOptions][])('module option %s fails app.init() with InvalidModuleOptionsError', async (_, options) => {
      expect(await initError(options)).toBeInstanceOf(InvalidModuleOptionsError);
    });

    it.each([
      ['concurrency 1e20', { concurrency: 1e20 }],
      ['maxAttempts 1e20', { maxAttempts: 1e20 }],
      ['backoff.delay 1e16', { backoff: { type: 'fixed' as const, delay: 1e16 } }],
    ])('processor option %s fails app.init() with InvalidProcessorError', async (_label, options) => {
      expect(await initError({}, [defineProcessor('nums', async () => null, options)])).toBeInstanceOf(InvalidProcessorError);
    });
  });

  describe('data nested past the stack (item 7)', () => {
    it.each([5_000, 100_000])(
      'data nested %i levels is refused with InvalidJobDataError by add, addBulk and schedules',
      async (depth) => {
        const { producer, admin } = await start({ processing: false });
        const data = nested(depth);
        await expect(producer.add('deep', data)).rejects.toBeInstanceOf(InvalidJobDataError);
        await expect(producer.addBulk('deep', [{ data: 1 }, { data }])).rejects.toBeInstanceOf(InvalidJobDataError);
        await expect(producer.upsertSchedule('deep', 's', { every: 1000, data })).rejects.toBeInstanceOf(InvalidScheduleError);
        expect(await totalJobs(admin)).toBe(0);
      },
      HANG_TIMEOUT,
    );

    it('data nested 1,000 levels is accepted and comes back identical', async () => {
      const { producer, admin } = await start({ processing: false });
      const data = nested(999);
      const job = await producer.add('deep', data);
      expect((await admin.getJob(job.id))?.data).toEqual(data);
    });
  });

  describe('unknown module options (item 8)', () => {
    it('forRoot refuses a misspelt option, naming it and the option meant', async () => {
      const error = await initError({ pollIntervall: 500 } as SqliteQueueModuleOptions);
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error).toMatchObject({ option: 'pollIntervall' });
      expect((error as Error).message).toMatch(/did you mean "pollInterval"/);
    });

    it('forRootAsync refuses an unknown option returned by useFactory or by a useClass factory', async () => {
      const connection = current.db.options;
      expect(await initError(() => ({ ...connection, leaseDurationMs: 60_000 }) as SqliteQueueModuleOptions)).toMatchObject({
        name: 'InvalidModuleOptionsError',
        option: 'leaseDurationMs',
      });

      @Injectable()
      class OptionsFactory implements SqliteQueueOptionsFactory {
        createSqliteQueueOptions(): SqliteQueueModuleOptions {
          return { ...connection, retries: 3 } as SqliteQueueModuleOptions;
        }
      }
      const app = await Test.createTestingModule({ imports: [SqliteQueueModule.forRootAsync({ useClass: OptionsFactory })] }).compile();
      const error = await app.init().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      (app as unknown as { initializationPromise?: Promise<void> }).initializationPromise = undefined;
      await app.close();
      expect(error).toMatchObject({ name: 'InvalidModuleOptionsError', option: 'retries' });
    });
  });

  describe('leases shorter than SQLite can wait for a lock (item 9)', () => {
    it('a leaseDuration the heartbeat cannot keep through a busy wait is refused on SQLite, with the minimum and why', async () => {
      const error = await initError({ leaseDuration: 2000, pollInterval: 1000 });
      if (backend.kind === 'postgres') {
        // No busy timeout there: statements never wait for a file lock.
        expect(error).toBeUndefined();
        return;
      }
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error).toMatchObject({ option: 'leaseDuration' });
      expect((error as Error).message).toMatch(/at least 7000 ms .*busyTimeout 5000.*busy timeout/);
    });

    it('the floor follows busyTimeout: 500 ms with pollInterval 100 allows a 1600 ms lease and refuses 1599', async () => {
      if (backend.kind === 'postgres') {
        // A SQLite setting: refused there rather than silently meaningless.
        const error = await initError({ busyTimeout: 500 });
        expect(error).toBeInstanceOf(InvalidModuleOptionsError);
        expect(error).toMatchObject({ option: 'busyTimeout' });
        expect((error as Error).message).toMatch(/SQLite setting .*no meaning on PostgreSQL/);
        return;
      }
      expect(await initError({ busyTimeout: 500, pollInterval: 100, leaseDuration: 1600 })).toBeUndefined();
      const error = await initError({ busyTimeout: 500, pollInterval: 100, leaseDuration: 1599 });
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error).toMatchObject({ option: 'leaseDuration' });
      expect((error as Error).message).toMatch(/at least 1600 ms on SQLite with pollInterval 100 and busyTimeout 500, got 1599/);
    });

    it.each([[-1], [1.5], [60_001], [Number.NaN], ['500']])(
      'busyTimeout %p is refused, naming the option and the range',
      async (busyTimeout) => {
        const error = await initError({ busyTimeout } as unknown as SqliteQueueModuleOptions);
        expect(error).toBeInstanceOf(InvalidModuleOptionsError);
        expect(error).toMatchObject({ option: 'busyTimeout' });
        if (backend.kind === 'sqlite') expect((error as Error).message).toMatch(/integer number of ms from 0 to 60000/);
      },
    );
  });

  describe('retry of a job whose key a live job holds (item 10)', () => {
    async function failedJobs(): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
      const { producer, admin } = await start({}, [
        defineProcessor<{ fail?: boolean }>('retry-keys', async (job) => {
          if (job.data.fail) throw new UnrecoverableError('planned failure');
          return 'ok';
        }),
      ]);
      return { producer, admin };
    }

    it('retry throws JobKeyConflictError naming the holder; retryAll retries the others and reports the skipped one', async () => {
      const { producer, admin } = await failedJobs();
      const keyed = await producer.add('retry-keys', { fail: true }, { key: 'k' });
      const other = await producer.add('retry-keys', { fail: true }, { key: 'k2' });
      const plain = await producer.add('retry-keys', { fail: true });
      await waitFor(async () => (await admin.getCounts('retry-keys')).failed === 3, 'three jobs failed');
      await admin.pause('retry-keys');
      const holder = await producer.add('retry-keys', {}, { key: 'k' });

      const error = await admin.retry(keyed.id).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JobKeyConflictError);
      expect(error).toMatchObject({ queue: 'retry-keys', key: 'k', jobId: keyed.id, holderId: holder.id });
      expect(await admin.getJob(keyed.id)).toMatchObject({ status: 'failed' });

      const report = await admin.retryAll('retry-keys', { report: true });
      expect([...report.retried].sort()).toEqual([other.id, plain.id].sort());
      expect(report.skipped).toEqual([{ id: keyed.id, key: 'k', heldBy: holder.id }]);
      expect(await admin.getCounts('retry-keys')).toMatchObject({ pending: 3, failed: 1 });
      // The plain form still resolves with a count.
      expect(await admin.retryAll('retry-keys')).toBe(0);
    });

    it('retry of a cancelled debounced job while another job holds its key throws JobKeyConflictError naming the holder', async () => {
      const { producer, admin } = await start({ processing: false });
      const cancelled = await producer.add('retry-keys', { n: 1 }, { key: 'd', debounce: true });
      await admin.cancel(cancelled.id);
      const holder = await producer.add('retry-keys', { n: 2 }, { key: 'd', debounce: true });
      expect(holder.id).not.toBe(cancelled.id);

      const error = await admin.retry(cancelled.id).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JobKeyConflictError);
      expect(error).toMatchObject({ queue: 'retry-keys', key: 'd', jobId: cancelled.id, holderId: holder.id });
      expect(await admin.getJob(cancelled.id)).toMatchObject({ status: 'cancelled' });
      expect(await admin.getJob(holder.id)).toMatchObject({ status: 'pending', data: { n: 2 } });
      // Once the holder is gone, the retry goes through.
      await admin.cancel(holder.id);
      await admin.retry(cancelled.id);
      expect(await admin.getJob(cancelled.id)).toMatchObject({ status: 'pending', data: { n: 1 } });
    });

    it('retryAll with several failed jobs sharing a key retries the newest and reports the others', async () => {
      const { producer, admin } = await failedJobs();
      const older = await producer.add('retry-keys', { fail: true }, { key: 'dup' });
      await waitFor(async () => (await admin.getJob(older.id))?.status === 'failed', 'the older job failed');
      const newer = await producer.add('retry-keys', { fail: true }, { key: 'dup' });
      await waitFor(async () => (await admin.getJob(newer.id))?.status === 'failed', 'the newer job failed');
      await admin.pause('retry-keys');

      const report = await admin.retryAll('retry-keys', { report: true });
      expect(report.retried).toEqual([newer.id]);
      expect(report.skipped).toEqual([{ id: older.id, key: 'dup', heldBy: newer.id }]);
      expect(await admin.getJob(older.id)).toMatchObject({ status: 'failed' });
      expect(await admin.getJob(newer.id)).toMatchObject({ status: 'pending', attempts: 0 });
    });
  });
});

describeEachSqlite('a lease is measured from when its claim runs, not from when it was queued (item 9)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('a claim queued behind another process’s write lock gets a full lease from the moment it ran', async () => {
    const leaseDuration = 30_000;
    let releaseFirst!: () => void;
    const firstMayEnd = new Promise<void>((resolve) => (releaseFirst = resolve));
    const seenLease = new Map<string, number>();
    // Assigned once the app exists; the processor defined before it reads it.
    // eslint-disable-next-line prefer-const
    let admin!: QueueAdmin;
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, pollInterval: 1000, leaseDuration })],
      providers: [
        defineProcessor<{ first?: boolean }>(
          'lease',
          async (job) => {
            if (job.data.first) return firstMayEnd;
            // Read at once: the heartbeat (every second) has not renewed it yet.
            seenLease.set(job.id, (await admin.getJob(job.id))!.leaseUntil!.getTime());
            return null;
          },
          { concurrency: 1 },
        ),
      ],
    }).compile();
    await current.app.init();
    admin = current.app.get(QueueAdmin);
    const producer = current.app.get(QueueProducer);
    const first = await producer.add('lease', { first: true });
    const second = await producer.add('lease', {});
    await waitFor(async () => (await admin.getJob(first.id))?.status === 'running', 'the first job holds the only slot');

    const holder = startLockHolder(current.db.path, 2000);
    try {
      await holder.printed('LOCKED');
      // The first job ends: its completion and the claim of the second queue up behind the lock.
      releaseFirst();
      await waitFor(() => seenLease.has(second.id), 'the second job started after the lock', 30_000);
      await holder.printed('RELEASED');
      const released = Number(/RELEASING (\d+)/.exec(holder.stdout())![1]);
      expect(seenLease.get(second.id)!).toBeGreaterThanOrEqual(released + leaseDuration - 2);
    } finally {
      await holder.kill();
    }
  });
});
