/**
 * Validated payloads with a class-validator DTO class as a queue's `schema`: adds are checked by class-validator
 * (refused with InvalidJobDataError naming the nested path, nothing written), the stored data is the instance's plain
 * form (dates as ISO strings), the handler gets an instance of the class (methods and `@Type` dates restored), a
 * stored row the class refuses fails for good with InvalidStoredDataError, and `@Processor` and `registerQueue`
 * naming the same class agree.
 */
import { Injectable, Module } from '@nestjs/common';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsDate, IsInt, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import {
  InjectQueue,
  InvalidJobDataError,
  InvalidStoredDataError,
  Job,
  QueueAdmin,
  QueueProducer,
  SchemaData,
  SchemaQueue,
  SqliteQueueModule,
} from '../lib';
import { defineProcessor } from './fixtures/define-processor';
import { errorOf } from './support/ops';
import { describeEachBackend, perTestApp, MIGRATED } from './support/backends';
import { waitFor } from './support/wait-for';

class LineDto {
  @IsString()
  @MinLength(1)
  sku!: string;

  @IsInt()
  @Min(1)
  quantity!: number;
}

class OrderDto {
  @IsString()
  customer!: string;

  @Type(() => Date)
  @IsDate()
  placedAt!: Date;

  @ValidateNested({ each: true })
  @ArrayMinSize(1)
  @Type(() => LineDto)
  lines!: LineDto[];

  /** A method: only an instance of the class has it. */
  units(): number {
    return this.lines.reduce((sum, line) => sum + line.quantity, 0);
  }
}

@Injectable()
class OrderService {
  constructor(@InjectQueue('dto-orders') readonly orders: SchemaQueue<typeof OrderDto, number>) {}
}

@Module({ imports: [SqliteQueueModule.registerQueue({ name: 'dto-orders', schema: OrderDto })], providers: [OrderService] })
class OrderModule {}

/** Compile-time checks: a DTO class types the handle's input (its fields) and a job's data (the instance). */
export async function typeChecks(orders: SchemaQueue<typeof OrderDto>, job: Job<SchemaData<typeof OrderDto>>): Promise<void> {
  const units: number = job.data.units();
  const placed: Date = job.data.placedAt;
  await orders.add('order', { customer: 'a', placedAt: new Date(), lines: [{ sku: 's', quantity: 1 }] });
  // @ts-expect-error the handle's input type comes from the class's fields
  await orders.add('order', { client: 'a' });
  void [units, placed];
}

const placedAt = new Date('2026-12-06T10:00:00.000Z');
const goodOrder = {
  customer: 'acme',
  placedAt,
  lines: [
    { sku: 'a-1', quantity: 2 },
    { sku: 'b-2', quantity: 3 },
  ],
};

describeEachBackend('validated payloads (class-validator DTO class)', (backend) => {
  const current = perTestApp(backend, MIGRATED);

  it('refuses what the class refuses, naming the nested path, and writes nothing (add, addBulk)', async () => {
    const app = await current.startApp({ module: { processing: false }, imports: [OrderModule] });
    const { orders } = app.get(OrderService);
    const producer = app.get(QueueProducer);
    const nested = (await errorOf(() =>
      orders.add('order', {
        ...goodOrder,
        lines: [
          { sku: 'a-1', quantity: 2 },
          { sku: 'b-2', quantity: 0 },
        ],
      }),
    )) as InvalidJobDataError;
    expect(nested).toBeInstanceOf(InvalidJobDataError);
    expect(nested.path).toBe('data.lines[1].quantity');
    expect(nested.message).toContain('quantity must not be less than 1');
    const several = (await errorOf(() =>
      producer.add('dto-orders', { customer: 7, placedAt: 'not a date', lines: [] }),
    )) as InvalidJobDataError;
    expect(several.issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(['data.customer', 'data.placedAt', 'data.lines']));
    const notObject = (await errorOf(() => producer.add('dto-orders', 'order'))) as InvalidJobDataError;
    expect(notObject).toBeInstanceOf(InvalidJobDataError);
    expect(notObject.message).toContain('OrderDto');
    const bulk = (await errorOf(() =>
      producer.addBulk('dto-orders', [{ data: goodOrder }, { data: { ...goodOrder, customer: null as never } }]),
    )) as InvalidJobDataError;
    expect(bulk.path).toBe('items[1].data.customer');
    const counts = await app.get(QueueAdmin).getCounts('dto-orders');
    expect(Object.values(counts).reduce((sum, n) => sum + n, 0)).toBe(0);
  });

  it("stores the instance's plain form and hands the handler an instance of the class", async () => {
    const seen: { instance: boolean; placedAt: unknown; units: number }[] = [];
    const Orders = defineProcessor<OrderDto>(
      'dto-orders',
      async (job) => {
        seen.push({ instance: job.data instanceof OrderDto, placedAt: job.data.placedAt, units: job.data.units() });
        return job.data.units();
      },
      { schema: OrderDto },
    );
    // The same class on @Processor and registerQueue is one schema, not two.
    const app = await current.startApp({ module: { pollInterval: 50 }, imports: [OrderModule], providers: [Orders] });
    const { orders } = app.get(OrderService);
    const added = await orders.add('order', goodOrder);
    expect(added.data).toEqual({ customer: 'acme', placedAt: placedAt.toISOString(), lines: goodOrder.lines });
    await waitFor(async () => (await orders.getJob(added.id))?.status === 'completed', 'order completed');
    const stored = (await app.get(QueueAdmin).getJob(added.id))!;
    expect(stored.data).toEqual({ customer: 'acme', placedAt: placedAt.toISOString(), lines: goodOrder.lines });
    expect(stored.result).toBe(5);
    expect(seen).toHaveLength(1);
    expect(seen[0].instance).toBe(true);
    expect(seen[0].placedAt).toBeInstanceOf(Date);
    expect((seen[0].placedAt as Date).toISOString()).toBe(placedAt.toISOString());
  });

  it('fails for good, without calling the handler, a stored job whose data the class refuses', async () => {
    const writer = await current.startApp({ module: { processing: false } });
    const bad = await writer.get(QueueProducer).add('dto-orders', { customer: 'x', placedAt: 'yesterday', lines: [] }, { maxAttempts: 4 });
    await current.close(writer);

    const handled: string[] = [];
    const Orders = defineProcessor<OrderDto>(
      'dto-orders',
      async (job) => {
        handled.push(job.id);
      },
      { schema: OrderDto },
    );
    const app = await current.startApp({ module: { pollInterval: 50 }, providers: [Orders] });
    const admin = app.get(QueueAdmin);
    await waitFor(async () => (await admin.getJob(bad.id))?.status === 'failed', 'bad job failed');
    const failed = (await admin.getJob(bad.id))!;
    expect(failed.attempts).toBe(1);
    expect(failed.error).toMatchObject({ name: InvalidStoredDataError.name });
    expect(failed.error?.message).toContain('data.placedAt');
    expect(failed.error?.message).toContain('data.lines');
    expect(handled).toEqual([]);
  });
});
