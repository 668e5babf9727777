/**
 * Bad input through the public API: every invalid job option gets a clear, exported error naming the
 * option, and nothing is written. And a stored row whose payload cannot be read fails that job alone.
 */
import { rawQuery } from './support/raw-sqlite';
import {
  BulkJobItem,
  InvalidJobDataError,
  InvalidJobOptionsError,
  Job,
  JobOptions,
  JOBS_TABLE,
  Processor,
  QueueAdmin,
  QueueProcessor,
  QueueProducer,
  SqliteQueueError,
} from '../lib';
import { waitFor } from './support/wait-for';
import { describeEachBackend, itWhen, perFileApp, perTestApp, TestDatabase } from './support/backends';

interface ParseData {
  n: number;
  fail?: boolean;
}

const seen: number[] = [];

@Processor('parse', { concurrency: 2, backoff: { type: 'fixed', delay: 0 } })
class ParseProcessor implements QueueProcessor<ParseData, number> {
  async process(job: Job<ParseData>): Promise<number> {
    seen.push(job.data.n);
    if (job.data.fail) throw new Error(`planned failure of ${job.data.n}`);
    return job.data.n;
  }
}

/** Writes a job row the way another tool (or a corrupted write) could, bypassing the module. */
async function insertRawJob(
  database: TestDatabase,
  row: { queue: string; data: string; backoff?: string; maxAttempts?: number },
): Promise<string> {
  const now = Date.now();
  const [inserted] = await rawQuery<{ id: number }>(
    database,
    `INSERT INTO ${JOBS_TABLE} (queue, status, data, priority, run_at, attempts, max_attempts, backoff, created_at, updated_at)
     VALUES (?, 'pending', ?, 0, ?, 0, ?, ?, ?, ?) RETURNING id`,
    [row.queue, row.data, now, row.maxAttempts ?? 3, row.backoff ?? null, now, now],
  );
  return String(inserted.id);
}

/** The error `promise` rejects with; fails when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error('expected a rejection, but the call resolved');
  return outcome;
}

/** The invalid options, each with the option name the error must carry. */
const BAD_OPTIONS: [string, unknown, string][] = [
  ['negative delay', { delay: -1 }, 'delay'],
  ['NaN delay', { delay: NaN }, 'delay'],
  ['infinite delay', { delay: Infinity }, 'delay'],
  ['string delay', { delay: '100' }, 'delay'],
  ['negative priority', { priority: -1 }, 'priority'],
  ['fractional priority', { priority: 1.5 }, 'priority'],
  ['NaN priority', { priority: NaN }, 'priority'],
  ['infinite priority', { priority: Infinity }, 'priority'],
  ['string priority', { priority: '2' }, 'priority'],
  ['maxAttempts 0', { maxAttempts: 0 }, 'maxAttempts'],
  ['negative maxAttempts', { maxAttempts: -3 }, 'maxAttempts'],
  ['fractional maxAttempts', { maxAttempts: 2.5 }, 'maxAttempts'],
  ['infinite maxAttempts', { maxAttempts: Infinity }, 'maxAttempts'],
  ['string maxAttempts', { maxAttempts: '3' }, 'maxAttempts'],
  ['timeout 0', { timeout: 0 }, 'timeout'],
  ['negative timeout', { timeout: -100 }, 'timeout'],
  ['NaN timeout', { timeout: NaN }, 'timeout'],
  ['infinite timeout', { timeout: Infinity }, 'timeout'],
  ['timeout past the timer limit', { timeout: 2 ** 31 }, 'timeout'],
  ['backoff not an object', { backoff: 'exponential' }, 'backoff'],
  ['backoff null', { backoff: null }, 'backoff'],
  ['backoff bad type', { backoff: { type: 'linear', delay: 100 } }, 'backoff'],
  ['backoff without type', { backoff: { delay: 100 } }, 'backoff'],
  ['backoff negative delay', { backoff: { type: 'fixed', delay: -1 } }, 'backoff'],
  ['backoff NaN delay', { backoff: { type: 'fixed', delay: NaN } }, 'backoff'],
  ['backoff without delay', { backoff: { type: 'exponential' } }, 'backoff'],
  ['backoff negative maxDelay', { backoff: { type: 'exponential', delay: 10, maxDelay: -5 } }, 'backoff'],
  ['backoff non-boolean jitter', { backoff: { type: 'exponential', delay: 10, jitter: 'yes' } }, 'backoff'],
  ['backoff jitter 1', { backoff: { type: 'exponential', delay: 10, jitter: 1 } }, 'backoff'],
  ['runAt invalid Date', { runAt: new Date('not a date') }, 'runAt'],
  ['runAt string', { runAt: '2030-01-01T00:00:00Z' }, 'runAt'],
  ['runAt number', { runAt: Date.now() + 1000 }, 'runAt'],
  ['key empty', { key: '' }, 'key'],
  ['key number', { key: 42 }, 'key'],
  ['key null', { key: null }, 'key'],
  ['key object', { key: { id: 1 } }, 'key'],
  ['key past 1024 characters', { key: 'k'.repeat(1025) }, 'key'],
  ['unknown option', { delai: 100 }, 'delai'],
  ['unknown option among valid ones', { delay: 10, attempts: 3 }, 'attempts'],
  ['options not an object', 'urgent', 'options'],
];

/**
 * The refusals are the producer's own checks, made before any statement reaches a backend: one backend (node-sqlite3)
 * and one app for the whole block. Each test still reads the counts, so a refusal that wrote would show; nothing in
 * this block writes, so every test starts from the same empty database.
 */
describeEachBackend(
  'job options: bad input is refused at the boundary and writes nothing',
  (backend) => {
    const shared = perFileApp(backend, { module: { pollInterval: 50 }, providers: [ParseProcessor] });
    let producer: QueueProducer;
    let admin: QueueAdmin;
    beforeAll(() => {
      producer = shared.get(QueueProducer);
      admin = shared.get(QueueAdmin);
    });

    const expectNothingWritten = async () => {
      const counts = await admin.getCounts();
      expect(Object.values(counts).every((count) => count === 0)).toBe(true);
    };

    it.each(BAD_OPTIONS)('add() refuses %s with InvalidJobOptionsError', async (_, options, option) => {
      const error = await rejection(producer.add('options', { n: 1 }, options as JobOptions));
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect(error).toBeInstanceOf(SqliteQueueError);
      expect(error.name).toBe('InvalidJobOptionsError');
      expect((error as InvalidJobOptionsError).option).toBe(option);
      expect((error as InvalidJobOptionsError).queue).toBe('options');
      expect(error.message).toContain(`Invalid job option ${option} for queue "options"`);
      expect(error.message).toContain('Nothing was enqueued');
      await expectNothingWritten();
    });

    it.each(BAD_OPTIONS)('addBulk() refuses a batch whose 3rd item has %s, writing none of it', async (_, options, option) => {
      const items: BulkJobItem[] = [
        { data: { n: 1 } },
        { data: { n: 2 }, options: { delay: 5 } },
        { data: { n: 3 }, options: options as JobOptions },
      ];
      const error = await rejection(producer.addBulk('options', items));
      expect(error).toBeInstanceOf(InvalidJobOptionsError);
      expect((error as InvalidJobOptionsError).option).toBe(`items[2].${option}`);
      await expectNothingWritten();
    });

    it('addBulk() refuses items without data, non-object items, a non-array, and unknown item fields', async () => {
      const cases: [unknown, string][] = [
        [[{ data: 1 }, { options: { delay: 5 } }], 'items[1]'],
        [[{ data: 1 }, null], 'items[1]'],
        [[42], 'items[0]'],
        [{ data: 1 }, 'items'],
        [[{ data: 1 }, { data: 2, delay: 100 }], 'items[1].delay'],
      ];
      for (const [items, option] of cases) {
        const error = await rejection(producer.addBulk('options', items as BulkJobItem[]));
        expect(error).toBeInstanceOf(InvalidJobOptionsError);
        expect((error as InvalidJobOptionsError).option).toBe(option);
      }
      await expectNothingWritten();
    });

    it('refuses data that JSON cannot carry with InvalidJobDataError', async () => {
      for (const data of [
        undefined,
        () => 1,
        { when: new Date() },
        { n: NaN }, // A sparse array, on purpose.
        // eslint-disable-next-line no-sparse-arrays
        [1, , 3],
      ]) {
        const error = await rejection(producer.add('options', data));
        expect(error).toBeInstanceOf(InvalidJobDataError);
      }
      const bulkError = await rejection(producer.addBulk('options', [{ data: 1 }, { data: { big: 10n } as unknown as number }]));
      expect(bulkError).toBeInstanceOf(InvalidJobDataError);
      await expectNothingWritten();
    });
  },
  ['sqlite3'],
);

describeEachBackend('job options: valid options are stored; unreadable stored rows fail their job alone', (backend) => {
  const current = perTestApp(backend);
  let producer: QueueProducer;
  let admin: QueueAdmin;

  beforeEach(async () => {
    seen.length = 0;
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [ParseProcessor] });
    producer = app.get(QueueProducer);
    admin = app.get(QueueAdmin);
  });

  it('the same options, valid, are accepted (the refusals above are about the values, not the names)', async () => {
    const job = await producer.add(
      'options',
      { n: 1 },
      {
        delay: 0,
        priority: 0,
        maxAttempts: 1,
        timeout: 2 ** 31 - 1,
        backoff: { type: 'exponential', delay: 0, maxDelay: 0, jitter: false },
        runAt: new Date(),
        key: 'k',
      },
    );
    expect(job).toMatchObject({ maxAttempts: 1, priority: 0, key: 'k' });
    expect((await admin.getCounts('options')).pending).toBe(1);
  });

  // SQLite only: the row is written with a raw connection (PostgreSQL would refuse such a row).
  itWhen(backend.kind === 'sqlite')(
    'a stored payload that is not JSON fails that job with a clear error; the poller and every other job go on',
    async () => {
      const before = await producer.addBulk<ParseData>(
        'parse',
        Array.from({ length: 10 }, (_, n) => ({ data: { n } })),
      );
      const badId = await insertRawJob(current.db, { queue: 'parse', data: 'not json{' });
      const after = await producer.addBulk<ParseData>(
        'parse',
        Array.from({ length: 10 }, (_, n) => ({ data: { n: 10 + n } })),
      );
      await waitFor(async () => (await admin.getJob(badId))?.status === 'failed', 'the unreadable job failed');
      await waitFor(async () => (await admin.getCounts('parse')).completed === 20, 'the other 20 jobs completed');

      const bad = (await admin.getJob(badId))!;
      expect(bad).toMatchObject({ status: 'failed', attempts: 1, data: 'not json{', lockedBy: null, leaseUntil: null });
      expect(bad.error).toMatchObject({ name: 'InvalidStoredDataError', attempt: 1 });
      expect(bad.error!.message).toMatch(/not valid JSON/);
      for (const job of [...before, ...after]) expect((await admin.getJob(job.id))?.status).toBe('completed');
      // Still polling: a job from another connection after the failure runs too.
      const later = await insertRawJob(current.db, { queue: 'parse', data: JSON.stringify({ n: 99 }) });
      await waitFor(async () => (await admin.getJob(later))?.status === 'completed', 'a later job completed');
      expect(seen).toContain(99);
    },
  );

  itWhen(backend.kind === 'sqlite')(
    'a stored backoff that is not JSON does not stop the queue: the failing job still retries or fails, the rest complete',
    async () => {
      const badBackoff = await insertRawJob(current.db, {
        queue: 'parse',
        data: JSON.stringify({ n: 1, fail: true }),
        backoff: 'oops{',
        maxAttempts: 2,
      });
      await waitFor(
        async () => (await admin.getJob(badBackoff))?.status === 'failed',
        'the job with the unreadable backoff failed',
        15_000,
      );
      expect(await admin.getJob(badBackoff)).toMatchObject({
        status: 'failed',
        attempts: 2,
        error: { message: 'planned failure of 1', attempt: 2 },
      });
      const jobs = await producer.addBulk<ParseData>(
        'parse',
        Array.from({ length: 10 }, (_, n) => ({ data: { n: 10 + n } })),
      );
      await waitFor(async () => (await admin.getCounts('parse')).completed === 10, 'later jobs of the same queue completed');
      for (const job of jobs) expect((await admin.getJob(job.id))?.status).toBe('completed');
    },
  );
});
