/**
 * Validated payloads: a queue's `schema` (a Standard Schema: zod here, and hand-written ones) checks every add of the
 * queue in the application (add, the handle's add, addBulk, addFlow: refused with InvalidJobDataError, writing
 * nothing), stores the schema's output, and checks each job its processor claims: a stored row the schema refuses
 * fails for good with InvalidStoredDataError, logged, without calling the handler. A bad `schema` option fails boot.
 */
import { Injectable, LoggerService, Module } from '@nestjs/common';
import { z } from 'zod';
import {
  InjectQueue,
  InvalidJobDataError,
  InvalidModuleOptionsError,
  InvalidProcessorError,
  InvalidStoredDataError,
  Job,
  PayloadSchema,
  QueueAdmin,
  QueueProducer,
  SchemaData,
  SchemaQueue,
  SqliteQueueModule,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { AppConnection, appConnection } from './support/app-connection';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

/** A real Standard Schema library: a trimmed, lower-cased address and a default count. */
const mailSchema = z.object({ to: z.string().trim().toLowerCase().pipe(z.email()), count: z.number().int().default(1) });

interface Order {
  sku: string;
}

/** A hand-written minimal Standard Schema: `{ sku: non-empty string }`. */
const orderSchema: PayloadSchema<Order> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) => {
      const sku = (value as { sku?: unknown } | null)?.sku;
      return typeof sku === 'string' && sku.length > 0
        ? { value: { sku } }
        : { issues: [{ message: 'must be a non-empty string', path: ['sku'] }] };
    },
  },
};

/** The same, answering asynchronously (an asynchronous refinement, as a lookup would be). */
const asyncOrderSchema: PayloadSchema<Order> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => {
      await new Promise((resolve) => setImmediate(resolve));
      return orderSchema['~standard'].validate(value);
    },
  },
};

@Injectable()
class MailService {
  constructor(@InjectQueue('vp-mail') readonly mail: SchemaQueue<typeof mailSchema, string>) {}
}

@Module({ imports: [SqliteQueueModule.registerQueue({ name: 'vp-mail', schema: mailSchema })], providers: [MailService] })
class MailModule {}

/** Compile-time checks: what the schema's types give a processor and a handle; called by no test, checked by tsc. */
export async function typeChecks(mail: SchemaQueue<typeof mailSchema>, job: Job<SchemaData<typeof mailSchema>>): Promise<void> {
  const count: number = job.data.count;
  // The input may leave the defaulted count out; the job holds it.
  const added = await mail.add('welcome', { to: 'a@b.io' });
  const stored: number = added.data.count;
  // @ts-expect-error the handle's input type comes from the schema
  await mail.add('welcome', { too: 'a@b.io' });
  void [count, stored];
}

/** Keeps the error lines the library logs. */
class CapturingLogger implements LoggerService {
  readonly errors: string[] = [];
  log(): void {}
  warn(): void {}
  debug(): void {}
  verbose(): void {}
  error(message: unknown, ...rest: unknown[]): void {
    this.errors.push([message, ...rest].map(String).join(' '));
  }
}

describeEachBackend('validated payloads (queue schema)', (backend) => {
  const current = perTestApp(backend, MIGRATED);
  let connection: AppConnection | undefined;
  // After perTestApp's hook: the borrowed DataSource outlives the app that used it.
  afterEach(async () => {
    await connection?.destroy();
    connection = undefined;
  });

  /** Every job row of the database, whatever its queue and status. */
  const totalJobs = async (admin: QueueAdmin, queues: string[]) => {
    let total = 0;
    for (const queue of queues) total += Object.values(await admin.getCounts(queue)).reduce((sum, n) => sum + n, 0);
    return total;
  };

  it('refuses data the schema rejects with InvalidJobDataError naming the first issue, writing nothing', async () => {
    const Orders = defineProcessor<Order>('vp-orders', async () => undefined, { schema: orderSchema });
    const app = await current.startApp({ module: { processing: false }, imports: [MailModule], providers: [Orders] });
    const producer = app.get(QueueProducer);
    const refused = await errorOf(() => producer.add('vp-orders', { sku: '' }));
    expect(refused).toBeInstanceOf(InvalidJobDataError);
    expect(refused).toMatchObject({
      queue: 'vp-orders',
      path: 'data.sku',
      issues: [{ path: 'data.sku', message: 'must be a non-empty string' }],
    });
    expect(refused.message).toContain("does not match the queue's schema: data.sku: must be a non-empty string");
    const { mail } = app.get(MailService);
    const viaHandle = await errorOf(() => mail.add('welcome', { to: 'not an address' }));
    expect(viaHandle).toBeInstanceOf(InvalidJobDataError);
    expect((viaHandle as InvalidJobDataError).path).toBe('data.to');
    // A queue without a schema takes anything storable.
    await producer.add('vp-free', { sku: '' });
    expect(await totalJobs(app.get(QueueAdmin), ['vp-orders', 'vp-mail', 'vp-free'])).toBe(1);
  });

  it('addBulk and addFlow with one refused item write none of their jobs', async () => {
    const Orders = defineProcessor<Order>('vp-orders', async () => undefined, { schema: orderSchema });
    const app = await current.startApp({ module: { processing: false }, imports: [MailModule], providers: [Orders] });
    const producer = app.get(QueueProducer);
    const bulk = await errorOf(() => producer.addBulk('vp-orders', [{ data: { sku: 'a' } }, { data: { sku: 3 } }, { data: { sku: 'c' } }]));
    expect(bulk).toBeInstanceOf(InvalidJobDataError);
    expect((bulk as InvalidJobDataError).path).toBe('items[1].data.sku');
    const handleBulk = await errorOf(() =>
      app.get(MailService).mail.addBulk([
        { name: 'a', data: { to: 'a@b.io' } },
        { name: 'b', data: { to: 'nope' } },
      ]),
    );
    expect((handleBulk as InvalidJobDataError).path).toBe('items[1].data.to');
    const flow = await errorOf(() =>
      producer.addFlow({
        queue: 'vp-free',
        data: { any: 'thing' },
        children: [
          { queue: 'vp-orders', data: { sku: 'ok' } },
          { queue: 'vp-mail', data: { to: 'x@y.io' }, children: [{ queue: 'vp-orders', data: {} }] },
        ],
      }),
    );
    expect(flow).toBeInstanceOf(InvalidJobDataError);
    expect((flow as InvalidJobDataError).path).toBe('flow.children[1].children[0].data.sku');
    expect(await totalJobs(app.get(QueueAdmin), ['vp-orders', 'vp-mail', 'vp-free'])).toBe(0);
    // The same flow with good data is written whole, each job with its schema's output.
    const root = await producer.addFlow({
      queue: 'vp-free',
      data: { any: 'thing' },
      children: [{ queue: 'vp-mail', data: { to: ' X@Y.io' } }],
    });
    expect(await totalJobs(app.get(QueueAdmin), ['vp-orders', 'vp-mail', 'vp-free'])).toBe(2);
    const [child] = await app.get(QueueAdmin).getJobs('vp-mail');
    expect(child.data).toEqual({ to: 'x@y.io', count: 1 });
    expect(root.queue).toBe('vp-free');
  });

  it("stores the schema's output (transform and default) and the handler gets it (zod)", async () => {
    const handled: unknown[] = [];
    const Mailer = defineProcessor<SchemaData<typeof mailSchema>>('vp-mail', async (job) => {
      handled.push(job.data);
      return job.data.to;
    });
    const app = await current.startApp({ module: { pollInterval: 50 }, imports: [MailModule], providers: [Mailer] });
    const { mail } = app.get(MailService);
    const added = await mail.add('welcome', { to: '  Ada@Example.COM ' });
    expect(added.data).toEqual({ to: 'ada@example.com', count: 1 });
    const bulk = await app.get(QueueProducer).addBulk('vp-mail', [{ data: { to: 'B@x.io', count: 3 } }]);
    expect(bulk[0].data).toEqual({ to: 'b@x.io', count: 3 });
    await waitFor(async () => (await mail.getCounts()).completed === 2, 'both mails completed');
    expect((await mail.getJob(added.id))?.data).toEqual({ to: 'ada@example.com', count: 1 });
    expect(handled).toEqual(
      expect.arrayContaining([
        { to: 'ada@example.com', count: 1 },
        { to: 'b@x.io', count: 3 },
      ]),
    );
  });

  it("gives the handler the schema's output of the stored data, not the row as stored (written before the schema)", async () => {
    // Written by code without the schema: untrimmed, and without the count the schema defaults.
    const writer = await current.startApp({ module: { processing: false } });
    const job = await writer.get(QueueProducer).add('vp-mail', { to: '  Ada@Example.COM ' });
    await current.close(writer);

    const handled: unknown[] = [];
    const Mailer = defineProcessor<SchemaData<typeof mailSchema>>('vp-mail', async (claimed) => {
      handled.push(claimed.data);
    });
    const app = await current.startApp({ module: { pollInterval: 50 }, imports: [MailModule], providers: [Mailer] });
    const admin = app.get(QueueAdmin);
    await waitFor(async () => (await admin.getJob(job.id))?.status === 'completed', 'the mail job completed');
    expect(handled).toEqual([{ to: 'ada@example.com', count: 1 }]);
    // The check at the claim changes what the handler gets, not the row.
    expect((await admin.getJob(job.id))?.data).toEqual({ to: '  Ada@Example.COM ' });
  });

  it('waits for an asynchronous validate, on add, addBulk and addFlow alike', async () => {
    const Orders = defineProcessor<Order>('vp-async', async () => undefined, { schema: asyncOrderSchema });
    const app = await current.startApp({ module: { processing: false }, providers: [Orders] });
    const producer = app.get(QueueProducer);
    expect(await errorOf(() => producer.add('vp-async', { sku: 1 }))).toBeInstanceOf(InvalidJobDataError);
    expect(((await errorOf(() => producer.addBulk('vp-async', [{ data: { sku: 'a' } }, { data: {} }]))) as InvalidJobDataError).path).toBe(
      'items[1].data.sku',
    );
    expect(
      await errorOf(() => producer.addFlow({ queue: 'vp-async', data: { sku: 'a' }, children: [{ queue: 'vp-async', data: null }] })),
    ).toBeInstanceOf(InvalidJobDataError);
    expect(await totalJobs(app.get(QueueAdmin), ['vp-async'])).toBe(0);
    const added = await producer.add('vp-async', { sku: 'kept', extra: 'dropped by the schema' });
    expect(added.data).toEqual({ sku: 'kept' });
    expect(await totalJobs(app.get(QueueAdmin), ['vp-async'])).toBe(1);
  });

  it('fails for good, without calling the handler, a stored job whose data the schema refuses (InvalidStoredDataError, logged)', async () => {
    // Written by an application that declares no schema (older code, or another app), then run by one that does.
    const writer = await current.startApp({ module: { processing: false } });
    const bad = await writer.get(QueueProducer).add('vp-orders', { sku: 42 }, { maxAttempts: 5 });
    const good = await writer.get(QueueProducer).add('vp-orders', { sku: 'fine' });
    await current.close(writer);

    const logger = new CapturingLogger();
    const handled: string[] = [];
    const Orders = defineProcessor<Order>(
      'vp-orders',
      async (job) => {
        handled.push(job.id);
      },
      { schema: asyncOrderSchema },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Orders], logger });
    const admin = app.get(QueueAdmin);
    await waitFor(
      async () => (await admin.getJob(bad.id))?.status === 'failed' && (await admin.getJob(good.id))?.status === 'completed',
      'bad job failed, good completed',
    );
    const failed = (await admin.getJob(bad.id))!;
    expect(failed.attempts).toBe(1);
    expect(failed.error).toMatchObject({ name: InvalidStoredDataError.name });
    expect(failed.error?.message).toContain('data.sku: must be a non-empty string');
    expect(handled).toEqual([good.id]);
    expect(
      logger.errors.some((line) => line.includes(`Job ${bad.id} (queue vp-orders)`) && line.includes("does not match the queue's schema")),
    ).toBe(true);
  });

  it("checks job.updateData, schedules' data and a validate that throws with the schema too", async () => {
    const updates: unknown[] = [];
    const Orders = defineProcessor<Order>(
      'vp-orders',
      async (job) => {
        updates.push(await errorOf(() => job.updateData({ sku: '' })));
        await job.updateData({ sku: 'updated', extra: 1 } as Order);
        updates.push(job.data);
      },
      { schema: orderSchema },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Orders] });
    const producer = app.get(QueueProducer);
    const job = await producer.add('vp-orders', { sku: 'first' });
    await waitFor(async () => (await app.get(QueueAdmin).getJob(job.id))?.status === 'completed', 'job completed');
    expect(updates[0]).toBeInstanceOf(InvalidJobDataError);
    expect(updates[1]).toEqual({ sku: 'updated' });
    expect((await app.get(QueueAdmin).getJob(job.id))?.data).toEqual({ sku: 'updated' });

    const schedule = await errorOf(() => producer.upsertSchedule('vp-orders', 'nightly', { every: 60_000, data: { sku: '' } }));
    expect((schedule as InvalidJobDataError).path).toBe('data.sku');
    expect(await producer.listSchedules()).toEqual([]);

    const throwing: PayloadSchema = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('boom');
        },
      },
    };
    const Throwing = defineProcessor('vp-throws', async () => undefined, { schema: throwing });
    const other = await current.startApp({ module: { processing: false }, providers: [Throwing] });
    const thrown = await errorOf(() => other.get(QueueProducer).add('vp-throws', {}));
    expect(thrown).toBeInstanceOf(InvalidJobDataError);
    expect(thrown.message).toContain("the schema's validate threw: boom");
    expect(await totalJobs(other.get(QueueAdmin), ['vp-throws'])).toBe(0);
  });

  it("composes with transactions (an async schema inside the caller's transaction) and dead letters", async () => {
    connection = await appConnection(current);
    const { dataSource, orders } = connection;
    const dead: string[] = [];
    const Orders = defineProcessor<Order>('vp-orders', async () => undefined, { schema: asyncOrderSchema, deadLetter: 'vp-dead' });
    const Dead = defineProcessor('vp-dead', async (job) => {
      dead.push(job.id);
    });
    const writer = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, processing: false })],
    });
    const stale = await writer.get(QueueProducer).add('vp-orders', { sku: null }, { maxAttempts: 3 });
    await current.close(writer);
    const app = await current.startApp({
      replaceImports: true,
      imports: [SqliteQueueModule.forRoot({ ...connection.options, pollInterval: 50 })],
      providers: [Orders, Dead],
    });
    const producer = app.get(QueueProducer);
    const admin = app.get(QueueAdmin);
    const refused = await errorOf(() =>
      dataSource.transaction(async (manager) => {
        await manager.query(`INSERT INTO ${orders} (id, item) VALUES (1, 'lost')`);
        await producer.add('vp-orders', { sku: 'kept?' }, { manager });
        await producer.add('vp-orders', { sku: '' }, { manager });
      }),
    );
    expect(refused).toBeInstanceOf(InvalidJobDataError);
    expect(await dataSource.query(`SELECT id FROM ${orders}`)).toEqual([]);
    const job = await dataSource.transaction((manager) => producer.add('vp-orders', { sku: 'kept', extra: 1 }, { manager }));
    await waitFor(
      async () => (await admin.getJob(job.id))?.status === 'completed' && dead.length === 1,
      'job completed, stale one dead-lettered',
    );
    expect((await admin.getJob(job.id))?.data).toEqual({ sku: 'kept' });
    expect(await admin.getJob(stale.id)).toMatchObject({ status: 'failed', attempts: 1, error: { name: InvalidStoredDataError.name } });
    expect((await admin.getJob(dead[0]))?.deadLetter).toMatchObject({ jobId: stale.id, queue: 'vp-orders' });
  });

  it("fails boot on a declared schedule whose data the queue's schema refuses", async () => {
    const Orders = defineProcessor('vp-orders', async () => undefined, {
      schema: orderSchema,
      schedules: [{ name: 'bad', every: 60_000, data: {} }],
    });
    const failure = await errorOf(() => current.startApp({ providers: [Orders] }));
    expect(failure).toBeInstanceOf(InvalidJobDataError);
    expect((failure as InvalidJobDataError).path).toBe('data.sku');
  });

  it('fails boot on a bad schema option: not a Standard Schema, a wrong version, a function, two schemas for one queue', async () => {
    const badVersion = { '~standard': { version: 2, vendor: 'x', validate: () => ({ value: 1 }) } };
    for (const schema of [{}, 'zod', badVersion, () => ({})]) {
      const Orders = defineProcessor('vp-orders', async () => undefined, { schema: schema as never });
      const failure = await errorOf(async () => {
        const app = await current.compileApp({ providers: [Orders] });
        await app.init();
      });
      expect(failure).toBeInstanceOf(InvalidProcessorError);
      expect(failure.message).toContain('schema');
      const registered = await errorOf(() =>
        current.compileApp({ imports: [SqliteQueueModule.registerQueue({ name: 'vp-x', schema: schema as never })] }),
      );
      expect(registered).toBeInstanceOf(InvalidModuleOptionsError);
      expect((registered as InvalidModuleOptionsError).option).toBe('registerQueue(vp-x).schema');
    }
    const Twice = defineProcessor('vp-mail', async () => undefined, { schema: orderSchema });
    const conflict = await errorOf(async () => {
      const app = await current.compileApp({ imports: [MailModule], providers: [Twice] });
      await app.init();
    });
    expect(conflict).toBeInstanceOf(InvalidProcessorError);
    expect(conflict.message).toContain('different schema');
  });
});
