import { Type } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import {
  BulkJobItem,
  InvalidJobDataError,
  InvalidJobOptionsError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  InvalidQueueNameError,
  JobOptions,
  Processor,
  ProcessorOptions,
  QueueAdmin,
  QueueAlreadyRegisteredError,
  QueueProducer,
  SqliteQueueError,
  SqliteQueueModule,
  SqliteQueueModuleOptions,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { jobCounts } from './support/job-counts';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';

const NO_JOBS = jobCounts();

/**
 * After a failed `init()`, Nest's `close()` awaits the failed initialisation again and re-throws, so it closes
 * nothing: the connection the module opened in `onModuleInit` would outlive the test. Clearing that promise
 * (a private field of Nest 11's NestApplicationContext) lets `close()` run the shutdown hooks, and the module
 * release what it opened, as it would in a process that exits after a failed boot.
 */
async function closeAfterFailedInit(app: TestingModule): Promise<void> {
  (app as unknown as { initializationPromise?: Promise<void> }).initializationPromise = undefined;
  await app.close();
}

/** Awaits `work` and returns what it rejected with; fails the test when it resolves. */
async function rejectionOf(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection, but it resolved');
}

describeEachBackend('errors: every exported error class, raised through the public API', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  /** Compiles an app and returns why `app.init()` rejected, after closing the half-started app. */
  async function initError(providers: Type[], options: SqliteQueueModuleOptions = {}): Promise<Error> {
    const failing = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, ...options })],
      providers,
    }).compile();
    const error = await rejectionOf(failing.init());
    await closeAfterFailedInit(failing);
    return error;
  }

  /** A producer-only app on a fresh file, to exercise the producer and admin boundaries. */
  async function producerApp(): Promise<{ producer: QueueProducer; admin: QueueAdmin }> {
    current.app = await Test.createTestingModule({
      imports: [SqliteQueueModule.forRoot({ ...current.db.options, processing: false })],
    }).compile();
    await current.app.init();
    return { producer: current.app.get(QueueProducer), admin: current.app.get(QueueAdmin) };
  }

  describe('QueueAlreadyRegisteredError', () => {
    it('rejects app.init() when two @Processor classes name the same queue, naming the queue and both classes', async () => {
      @Processor('invoices')
      class InvoiceProcessor {
        async process(): Promise<void> {}
      }
      @Processor('invoices')
      class LegacyInvoiceProcessor {
        async process(): Promise<void> {}
      }
      const error = await initError([InvoiceProcessor, LegacyInvoiceProcessor]);
      expect(error).toBeInstanceOf(QueueAlreadyRegisteredError);
      expect(error).toBeInstanceOf(SqliteQueueError);
      expect(error.name).toBe('QueueAlreadyRegisteredError');
      expect(error.message).toContain('"invoices"');
      expect(error.message).toContain('InvoiceProcessor');
      expect(error.message).toContain('LegacyInvoiceProcessor');
      expect(error).toMatchObject({ queue: 'invoices' });
      const { existingProcessor, duplicateProcessor } = error as QueueAlreadyRegisteredError;
      expect([existingProcessor, duplicateProcessor].sort()).toEqual(['InvoiceProcessor', 'LegacyInvoiceProcessor']);
    });
  });

  describe('InvalidProcessorError', () => {
    it('rejects app.init() for a @Processor class without a process() method', async () => {
      @Processor('reports')
      class ReportProcessor {
        async run(): Promise<void> {}
      }
      const error = await initError([ReportProcessor]);
      expect(error).toBeInstanceOf(InvalidProcessorError);
      expect(error.message).toContain('ReportProcessor');
      expect(error.message).toContain("@Processor('reports')");
      expect(error.message).toContain('process(job)');
    });

    it.each<[string, ProcessorOptions, string]>([
      ['concurrency 0', { concurrency: 0 }, 'concurrency'],
      ['fractional concurrency', { concurrency: 1.5 }, 'concurrency'],
      ['negative concurrency', { concurrency: -2 }, 'concurrency'],
      ['negative prefetch', { prefetch: -1 }, 'prefetch'],
      ['fractional prefetch', { prefetch: 0.5 }, 'prefetch'],
      ['a prefetch that is not a number', { prefetch: '4' as unknown as number }, 'prefetch'],
      ["a prefetch word other than 'auto'", { prefetch: 'fast' as 'auto' }, 'prefetch'],
      ['maxAttempts 0', { maxAttempts: 0 }, 'maxAttempts'],
      ['timeout 0', { timeout: 0 }, 'timeout'],
      ['an unknown backoff type', { backoff: { type: 'linear' as 'fixed', delay: 10 } }, 'backoff'],
      ['an unknown option', { concurency: 2 } as ProcessorOptions, 'concurency'],
    ])('rejects app.init() for %s', async (_case, options, mentioned) => {
      const error = await initError([defineProcessor('reports', async () => undefined, options, 'ReportProcessor')]);
      expect(error).toBeInstanceOf(InvalidProcessorError);
      expect(error.message).toContain('ReportProcessor');
      expect(error.message).toContain(mentioned);
    });

    it('accepts the same processor with valid options (the cases above fail for their option alone)', async () => {
      current.app = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRoot({ ...current.db.options })],
        providers: [
          defineProcessor('reports', async () => undefined, {
            concurrency: 2,
            prefetch: 0,
            maxAttempts: 1,
            timeout: 100,
            backoff: { type: 'fixed', delay: 10 },
          }),
        ],
      }).compile();
      await expect(current.app.init()).resolves.toBeDefined();
    });
  });

  describe('InvalidJobDataError', () => {
    const circular: Record<string, unknown> = { name: 'loop' };
    circular.self = circular;

    it.each<[string, unknown, string]>([
      ['a cycle', circular, 'data.self'],
      ['a BigInt', { amount: 10n }, 'data.amount'],
      ['a function', { callback: () => 1 }, 'data.callback'],
      ['undefined data', undefined, 'data'],
      ['a nested undefined', { user: { email: undefined } }, 'data.user.email'],
      ['a Date', { sendAt: new Date() }, 'data.sendAt'],
      ['NaN', { ratio: NaN }, 'data.ratio'],
      ['Infinity in an array', { values: [1, Infinity] }, 'data.values[1]'],
    ])('rejects %s in add() and addBulk(), naming where, and writes nothing', async (_case, data, path) => {
      const { producer, admin } = await producerApp();

      const error = await rejectionOf(producer.add('mail', data));
      expect(error).toBeInstanceOf(InvalidJobDataError);
      expect(error).toMatchObject({ queue: 'mail', path });
      expect(error.message).toContain(`queue "mail"`);
      expect(error.message).toContain(path);

      // The bad item sits between good ones: the good ones must not be written either.
      const bulkError = await rejectionOf(producer.addBulk('mail', [{ data: { ok: 1 } }, { data }, { data: { ok: 2 } }]));
      expect(bulkError).toBeInstanceOf(InvalidJobDataError);
      expect(bulkError.message).toContain(path.replace(/^data/, 'items[1].data'));

      expect(await admin.getCounts()).toEqual(NO_JOBS);
      // Sanity check of the check: a valid job on the same app is written and counted.
      await producer.add('mail', { ok: true });
      expect(await admin.getCounts()).toEqual(jobCounts({ pending: 1 }));
    });
  });

  describe('InvalidQueueNameError', () => {
    const badNames: [string, unknown][] = [
      ['an empty string', ''],
      ['a number', 42],
      ['null', null],
      ['a name of 129 characters', 'q'.repeat(129)],
      ['a space', 'send email'],
      ['a slash', 'mail/outbox'],
      ['a leading dash', '-mail'],
      ['a non-ASCII letter', 'réservations'],
    ];

    it.each(badNames)('rejects %s in add(), addBulk() and getCounts(), and writes nothing', async (_case, name) => {
      const { producer, admin } = await producerApp();
      const queue = name as string;
      for (const attempt of [producer.add(queue, { n: 1 }), producer.addBulk(queue, [{ data: { n: 1 } }]), admin.getCounts(queue)]) {
        const error = await rejectionOf(attempt);
        expect(error).toBeInstanceOf(InvalidQueueNameError);
        expect((error as InvalidQueueNameError).queue).toBe(name);
        expect(error.message).toContain('Invalid queue name');
        expect(error.message).toContain(typeof name === 'string' ? JSON.stringify(name) : `(${name === null ? 'null' : typeof name})`);
      }
      expect(await admin.getCounts()).toEqual(NO_JOBS);
    });

    it.each(badNames.filter(([, name]) => typeof name === 'string'))('rejects app.init() for @Processor with %s', async (_case, name) => {
      const error = await initError([defineProcessor(name as string, async () => undefined, {}, 'BadNameProcessor')]);
      expect(error).toBeInstanceOf(InvalidQueueNameError);
      expect(error.message).toContain(JSON.stringify(name));
    });

    it('accepts the longest and the most punctuated valid names (the limits above are the real ones)', async () => {
      const { producer, admin } = await producerApp();
      for (const queue of ['q'.repeat(128), '_billing.v2:retry-later', '7']) {
        await producer.add(queue, { n: 1 });
        expect(await admin.getCounts(queue)).toEqual(jobCounts({ pending: 1 }));
      }
    });
  });

  describe('InvalidJobOptionsError', () => {
    it('addBulk with one bad item in the middle writes none of the items, and names the item', async () => {
      const { producer, admin } = await producerApp();
      const items: BulkJobItem[] = [
        { data: { n: 0 } },
        { data: { n: 1 }, options: { priority: 5 } },
        { data: { n: 2 }, options: { priority: -1 } },
        { data: { n: 3 } },
      ];
      const error = await rejectionOf(producer.addBulk('mail', items));
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect(error).toMatchObject({ queue: 'mail', option: 'items[2].priority' });
      expect(error.message).toContain('items[2].priority');
      expect(error.message).toContain('Nothing was enqueued');
      expect(await admin.getCounts()).toEqual(NO_JOBS);

      // Without the bad item the same call writes all of them, so the rejection above was that item's alone.
      await producer.addBulk(
        'mail',
        items.filter((_, i) => i !== 2),
      );
      expect(await admin.getCounts()).toEqual(jobCounts({ pending: 3 }));
    });

    it('addBulk rejects items that are not { data, options? } and a non-array', async () => {
      const { producer, admin } = await producerApp();
      const notAnItem = await rejectionOf(producer.addBulk('mail', [{ data: 1 }, { payload: 2 } as unknown as BulkJobItem]));
      expect(notAnItem).toBeInstanceOf(InvalidJobOptionsError);
      expect(notAnItem.message).toContain('items[1]');
      const notAnArray = await rejectionOf(producer.addBulk('mail', { data: 1 } as unknown as BulkJobItem[]));
      expect(notAnArray).toBeInstanceOf(InvalidJobOptionsError);
      expect(await admin.getCounts()).toEqual(NO_JOBS);
    });

    it.each<[string, JobOptions]>([
      ['delay', { delay: -1 }],
      ['runAt', { runAt: new Date('not a date') }],
      ['priority', { priority: 1.5 }],
      ['maxAttempts', { maxAttempts: 0 }],
      ['timeout', { timeout: 0 }],
      ['backoff', { backoff: { type: 'fixed', delay: -10 } }],
      ['key', { key: '' }],
      ['retries', { retries: 3 } as JobOptions],
    ])('add rejects a bad %s and writes nothing', async (option, options) => {
      const { producer, admin } = await producerApp();
      const error = await rejectionOf(producer.add('mail', { n: 1 }, options));
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect(error).toMatchObject({ option });
      expect(error.message).toContain(option);
      expect(await admin.getCounts()).toEqual(NO_JOBS);
    });
  });

  describe('InvalidModuleOptionsError', () => {
    it.each<[string, SqliteQueueModuleOptions]>([
      ['pollInterval', { pollInterval: -1 }],
      ['batchSize', { batchSize: 0 }],
      ['batchSize', { batchSize: 2.5 }],
      ['batchWindow', { batchWindow: NaN }],
      ['leaseDuration', { leaseDuration: 0 }],
      ['shutdownTimeout', { shutdownTimeout: -5 }],
      ['migrationLockTimeout', { migrationLockTimeout: -1 }],
      ['migrationLockTimeout', { migrationLockTimeout: 2 ** 31 }],
      ['migrationLockTimeout', { migrationLockTimeout: '5m' as unknown as number }],
      ['maxAttempts', { maxAttempts: 0 }],
      ['processing', { processing: 'yes' as unknown as boolean }],
      ['database', { database: '' }],
      ['workerId', { workerId: '' }],
      ['backoff', { backoff: { type: 'exponential', delay: -1 } }],
      ['dataSource', { dataSource: {} as SqliteQueueModuleOptions['dataSource'] }],
    ])('forRoot: app.init() rejects an invalid %s', async (option, options) => {
      const error = await initError([], options);
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error).toMatchObject({ option });
      expect(error.message).toContain(`"${option}"`);
    });

    it('forRootAsync: app.init() rejects invalid options built by a factory', async () => {
      const failing = await Test.createTestingModule({
        imports: [SqliteQueueModule.forRootAsync({ useFactory: async () => ({ ...current.db.options, pollInterval: 0 }) })],
      }).compile();
      const error = await rejectionOf(failing.init());
      await closeAfterFailedInit(failing);
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect(error.message).toContain('"pollInterval"');
      expect(error.message).toContain('got 0');
    });

    it('forRootAsync without useFactory, useClass or useExisting throws at once, while the module is declared', () => {
      expect(() => SqliteQueueModule.forRootAsync({})).toThrow(InvalidModuleOptionsError);
      expect(() => SqliteQueueModule.forRootAsync({})).toThrow('useFactory, useClass or useExisting');
    });
  });
});
